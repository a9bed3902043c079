/**
 * The routes the fast paths around the API match — the list cache, the public course
 * page, the catalogue's caching headers — read from the contract's endpoints, never
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
  /** The one parameter of a public course path (the slug, as sent), or undefined for another path. */
  publicCourseSlugOf(path: string): string | undefined
}

/**
 * `template` as a test of a request path: each `:param` is one segment, anything but `/`.
 * Other characters stand for themselves.
 */
export const matcherOf = (template: string): RegExp =>
  new RegExp(`^${template.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment)).join("/")}$`)

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A template whose one parameter is its last segment, as its fixed prefix (`/public/courses/`). */
const lastParameterPrefix = (template: string): string => {
  const cut = template.lastIndexOf("/:")
  if (cut === -1 || template.indexOf(":") !== cut + 1) {
    throw new TypeError(`Coursekit: ${template} must end in its only parameter for the public course page to be served at the edge.`)
  }
  return template.slice(0, cut + 1)
}

/** The fast paths' routes in `api`. */
export const routesOf = (api: FastPathContract): FastPathRoutes => {
  const courseList = api.groups.courses.endpoints.list
  const course = api.groups.courses.endpoints.get
  const publicCourse = api.groups.public.endpoints.course
  const catalogue = [matcherOf(courseList.path), matcherOf(course.path)]
  const publicPrefix = lastParameterPrefix(publicCourse.path)
  return {
    courseList,
    course,
    publicCourse,
    isCourseList: (path) => path === courseList.path,
    isCatalogueRead: (path) => catalogue.some((pattern) => pattern.test(path)),
    publicCourseSlugOf: (path) => {
      if (!path.startsWith(publicPrefix)) return undefined
      const slug = path.slice(publicPrefix.length)
      return slug === "" || slug.includes("/") ? undefined : slug
    }
  }
}

/** The fast paths' routes in Coursekit's contract. */
export const contractRoutes: FastPathRoutes = routesOf(CoursekitApi)
