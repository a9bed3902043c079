export default function Home() {
  return (
    <main>
      <h1>The host app</h1>
      <p>POST /login {"{\"user\": \"admin\"}"}; Coursekit is at /api/coursekit (docs: /api/coursekit/docs).</p>
    </main>
  )
}
