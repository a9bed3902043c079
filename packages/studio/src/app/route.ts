/**
 * The Studio's views, in the URL's fragment (`#/courses/12`, `#/courses/12/lessons/7`,
 * `#/courses/12/preview`): the server answers one
 * page, `<prefix>/studio/`, whatever the view, and relative asset URLs stay right.
 */
import { useSyncExternalStore } from "react"

export type Route =
  | { readonly _tag: "courses" }
  | { readonly _tag: "course"; readonly id: number }
  | { readonly _tag: "lesson"; readonly courseId: number; readonly lessonId: number }
  | { readonly _tag: "preview"; readonly courseId: number }
  | { readonly _tag: "media" }

const positive = (text: string | undefined) => (text !== undefined && /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : undefined)

/** The view a fragment names; anything unknown is the course list. */
export const routeOf = (hash: string): Route => {
  const parts = hash.replace(/^#\/?/, "").split("/")
  if (parts[0] === "media" && parts.length === 1) return { _tag: "media" }
  const id = parts[0] === "courses" ? positive(parts[1]) : undefined
  if (id !== undefined && parts.length === 2) return { _tag: "course", id }
  if (id !== undefined && parts[2] === "preview" && parts.length === 3) return { _tag: "preview", courseId: id }
  const lessonId = parts[2] === "lessons" ? positive(parts[3]) : undefined
  if (id !== undefined && lessonId !== undefined && parts.length === 4) return { _tag: "lesson", courseId: id, lessonId }
  return { _tag: "courses" }
}

/** The fragment of a view. */
export const hrefOf = (route: Route): string => {
  switch (route._tag) {
    case "courses":
      return "#/"
    case "course":
      return `#/courses/${route.id}`
    case "lesson":
      return `#/courses/${route.courseId}/lessons/${route.lessonId}`
    case "preview":
      return `#/courses/${route.courseId}/preview`
    case "media":
      return "#/media"
  }
}

export const navigate = (route: Route) => {
  window.location.hash = hrefOf(route)
}

const subscribe = (onChange: () => void) => {
  window.addEventListener("hashchange", onChange)
  return () => window.removeEventListener("hashchange", onChange)
}

/** The current view, following the fragment. */
export const useRoute = (): Route => routeOf(useSyncExternalStore(subscribe, () => window.location.hash))
