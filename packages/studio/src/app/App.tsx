/** The Studio: signed in, the view the URL's fragment names; else the sign-in form. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import { lazy, Suspense } from "react"
import { Button } from "react-aria-components"
import { CourseList } from "../features/courses/CourseList.tsx"
import { SignIn } from "../features/session/SignIn.tsx"
import { useAdminAccess, useSignOut } from "../features/session/sessionQueries.ts"
import { problemMessage } from "../shared/problemMessage.ts"
import { hrefOf, type Route, useRoute } from "./route.ts"
import { ViewBoundary } from "./ViewBoundary.tsx"

// The editors are chunks of their own, loaded when first opened: the sign-in form and the
// course list, the first screens, load neither them nor Tiptap, ProseMirror or dnd-kit
// (about two fifths of the Studio's script; docs/studio.md, "Size").
const CourseEditorPage = lazy(() => import("../features/editor/CourseEditor.tsx").then((module) => ({ default: module.CourseEditorPage })))
const CoursePreviewPage = lazy(() => import("../features/preview/CoursePreview.tsx").then((module) => ({ default: module.CoursePreviewPage })))
const LessonEditorPage = lazy(() => import("../features/editor/LessonEditor.tsx").then((module) => ({ default: module.LessonEditorPage })))
const MediaLibrary = lazy(() => import("../features/media/MediaLibrary.tsx").then((module) => ({ default: module.MediaLibrary })))

const queryClient = new QueryClient({
  defaultOptions: {
    // An author's data changes when they change it: no refetch on every focus.
    queries: { refetchOnWindowFocus: false, retry: 1 }
  }
})

const View = ({ route }: { readonly route: Route }) => {
  switch (route._tag) {
    case "courses":
      return <CourseList />
    case "course":
      return <CourseEditorPage id={route.id} />
    case "lesson":
      return <LessonEditorPage courseId={route.courseId} lessonId={route.lessonId} />
    case "preview":
      return <CoursePreviewPage courseId={route.courseId} />
    case "media":
      return <MediaLibrary />
  }
}

const SignedIn = () => {
  const route = useRoute()
  const signOut = useSignOut()
  return (
    <>
      <header className="app-header">
        <a className="brand" href={hrefOf({ _tag: "courses" })}>Coursekit Studio</a>
        <nav className="app-nav" aria-label="Studio">
          <a href={hrefOf({ _tag: "media" })} aria-current={route._tag === "media" ? "page" : undefined}>Media</a>
        </nav>
        <Button onPress={() => signOut.mutate()} isDisabled={signOut.isPending}>Sign out</Button>
        {signOut.isError && <p role="alert" className="error">{problemMessage(signOut.error)}</p>}
      </header>
      <ViewBoundary resetKey={hrefOf(route)}>
        <Suspense fallback={<main aria-busy="true"><p>Loading…</p></main>}>
          <View route={route} />
        </Suspense>
      </ViewBoundary>
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
