/**
 * The routes the fast paths around the API match — the list cache, the public course
 * page, a learner's progress write, the catalogue's caching headers — read from the contract's endpoints, never
 * written again: renaming a path in `CoursekitApi` moves them with it, and renaming or
 * removing one of these endpoints fails to compile here.
 *
 * @since 0.3.0
 */
import { CoursekitApi } from "./CoursekitApi.ts"

/** An endpoint as far as matching goes: its method and path template (`/courses/:id`). */
type Route = { readonly method: string; readonly path: string }

/** A group that has the endpoint `name`. */
type GroupWith<Name extends string> = { readonly endpoints: { readonly [K in Name]: Route } }

/** What a contract must hold for the fast paths: the endpoints they stand in front of. */
export type FastPathContract = {
  readonly groups: {
    readonly courses: GroupWith<"list" | "get">
    readonly public: GroupWith<"course">
    readonly learning: GroupWith<"recordProgress">
  }
}

/** The paths the fast paths match, and the tests they make of a request's path (no query). */
export interface FastPathRoutes {
  /** `GET /courses`: the list, which the list cache serves. */
  readonly courseList: Route
  /** `GET /courses/:id`: one course. */
  readonly course: Route
  /** `GET /public/courses/:slug`: the public course page. */
  readonly publicCourse: Route
  /** Whether `path` is the course list's. */
  isCourseList(path: string): boolean
  /** Whether `path` is a catalogue read's: the list or one course (not its sub-resources). */
  isCatalogueRead(path: string): boolean
  /** `PUT /me/lessons/:lesson_id/progress`: a learner's progress write. */
  readonly lessonProgress: Route
  /** The one parameter of a public course path (the slug, as sent), or undefined for another path. */
  publicCourseSlugOf(path: string): string | undefined
  /** The one parameter of a lesson progress path (the lesson id, as sent), or undefined for another path. */
  lessonProgressIdOf(path: string): string | undefined
}

/**
 * `template` as a test of a request path: each `:param` is one segment, anything but `/`.
 * Other characters stand for themselves.
 */
export const matcherOf = (template: string): RegExp =>
  new RegExp(`^${template.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment)).join("/")}$`)

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A test of a request path against a template with exactly one parameter, a whole
 * segment: the parameter as sent (nonempty, no `/`), or undefined for another path.
 */
const oneParameterOf = (template: string): (path: string) => string | undefined => {
  const start = template.indexOf("/:")
  const end = template.indexOf("/", start + 1)
  const prefix = template.slice(0, start + 1)
  const suffix = end === -1 ? "" : template.slice(end)
  if (start === -1 || template.indexOf(":", start + 2) !== -1) {
    throw new TypeError(`Coursekit: ${template} must have exactly one parameter for the edge to answer it.`)
  }
  return (path) => {
    if (path.length <= prefix.length + suffix.length || !path.startsWith(prefix) || !path.endsWith(suffix)) return undefined
    const parameter = path.slice(prefix.length, path.length - suffix.length)
    return parameter.includes("/") ? undefined : parameter
  }
}

/** The fast paths' routes in `api`. */
export const routesOf = (api: FastPathContract): FastPathRoutes => {
  const courseList = api.groups.courses.endpoints.list
  const course = api.groups.courses.endpoints.get
  const publicCourse = api.groups.public.endpoints.course
  const lessonProgress = api.groups.learning.endpoints.recordProgress
  const catalogue = [matcherOf(courseList.path), matcherOf(course.path)]
  return {
    courseList,
    course,
    publicCourse,
    lessonProgress,
    isCourseList: (path) => path === courseList.path,
    isCatalogueRead: (path) => catalogue.some((pattern) => pattern.test(path)),
    publicCourseSlugOf: oneParameterOf(publicCourse.path),
    lessonProgressIdOf: oneParameterOf(lessonProgress.path)
  }
}

/** The fast paths' routes in Coursekit's contract. */
export const contractRoutes: FastPathRoutes = routesOf(CoursekitApi)
