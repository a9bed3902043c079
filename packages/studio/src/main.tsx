import { StrictMode } from "react"
import { createRoot } from "react-dom/client"

const App = () => <main><h1>Coursekit Studio</h1></main>

createRoot(document.getElementById("root")!).render(<StrictMode><App /></StrictMode>)
