/** The Studio: signed in, the view the URL's fragment names; else the sign-in form. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import { Button } from "react-aria-components"
import { CourseList } from "../features/courses/CourseList.tsx"
import { CourseEditorPage } from "../features/editor/CourseEditor.tsx"
import { LessonEditorPage } from "../features/editor/LessonEditor.tsx"
import { SignIn } from "../features/session/SignIn.tsx"
import { useAdminAccess, useSignOut } from "../features/session/sessionQueries.ts"
import { problemMessage } from "../shared/problemMessage.ts"
import { hrefOf, useRoute } from "./route.ts"

const queryClient = new QueryClient({
  defaultOptions: {
    // An author's data changes when they change it: no refetch on every focus.
    queries: { refetchOnWindowFocus: false, retry: 1 }
  }
})

const Views = () => {
  const route = useRoute()
  switch (route._tag) {
    case "courses":
      return <CourseList />
    case "course":
      return <CourseEditorPage id={route.id} />
    case "lesson":
      return <LessonEditorPage courseId={route.courseId} lessonId={route.lessonId} />
  }
}

const SignedIn = () => {
  const signOut = useSignOut()
  return (
    <>
      <header className="app-header">
        <a className="brand" href={hrefOf({ _tag: "courses" })}>Coursekit Studio</a>
        <Button onPress={() => signOut.mutate()} isDisabled={signOut.isPending}>Sign out</Button>
        {signOut.isError && <p role="alert" className="error">{problemMessage(signOut.error)}</p>}
      </header>
      <Views />
    </>
  )
}

const Gate = () => {
  const access = useAdminAccess()
  if (access.isPending) return <main aria-busy="true"><p>Loading…</p></main>
  if (access.isError) return <main><p role="alert" className="error">{problemMessage(access.error)}</p></main>
  return access.data ? <SignedIn /> : <SignIn />
}

export const App = () => (
  <QueryClientProvider client={queryClient}>
    <Gate />
  </QueryClientProvider>
)
