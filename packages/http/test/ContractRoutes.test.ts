import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { contractRoutes, matcherOf, routesOf } from "../src/ContractRoutes.ts"
import { CoursekitApi } from "../src/CoursekitApi.ts"

// A copy of the contract's four endpoints the fast paths stand in front of, with every path renamed.
const renamed = HttpApi.make("renamed")
  .add(HttpApiGroup.make("courses").add(HttpApiEndpoint.get("list", "/catalogue"), HttpApiEndpoint.get("get", "/catalogue/:id")))
  .add(HttpApiGroup.make("public").add(HttpApiEndpoint.get("course", "/open/:slug")))
  .add(HttpApiGroup.make("learning").add(HttpApiEndpoint.put("recordProgress", "/my/:lesson/done")))

describe("the fast paths' routes", () => {
  it("are the contract's: the list, one course, the public course page and a progress write, as CoursekitApi writes them", () => {
    expect(contractRoutes.courseList).toBe(CoursekitApi.groups.courses.endpoints.list)
    expect(contractRoutes.course).toBe(CoursekitApi.groups.courses.endpoints.get)
    expect(contractRoutes.publicCourse).toBe(CoursekitApi.groups.public.endpoints.course)
    expect([contractRoutes.courseList.path, contractRoutes.course.path, contractRoutes.publicCourse.path]).toEqual(["/courses", "/courses/:id", "/public/courses/:slug"])
    expect(contractRoutes.isCourseList("/courses")).toBe(true)
    expect(["/courses", "/courses/7", "/courses/search"].map(contractRoutes.isCatalogueRead)).toEqual([true, true, true])
    expect(["/courses/7/lessons", "/coursesx", "/public/courses/a", "/"].map(contractRoutes.isCatalogueRead)).toEqual([false, false, false, false])
    expect(contractRoutes.publicCourseSlugOf("/public/courses/intro-to-go")).toBe("intro-to-go")
    expect(["/public/courses/", "/public/courses/a/b", "/courses/a"].map(contractRoutes.publicCourseSlugOf)).toEqual([undefined, undefined, undefined])
    expect(contractRoutes.lessonProgress).toBe(CoursekitApi.groups.learning.endpoints.recordProgress)
    expect(contractRoutes.lessonProgress.path).toBe("/me/lessons/:lesson_id/progress")
    expect(contractRoutes.lessonProgressIdOf("/me/lessons/12/progress")).toBe("12")
    expect(["/me/lessons//progress", "/me/lessons/1/2/progress", "/me/lessons/1/progress/", "/me/lessons/1", "/me/lessons/progress"].map(contractRoutes.lessonProgressIdOf))
      .toEqual([undefined, undefined, undefined, undefined, undefined])
  })

  it("follow a renamed route: the same tests made of a copy of the contract with other paths match the new paths only", () => {
    const routes = routesOf(renamed)
    expect(routes.isCourseList("/catalogue")).toBe(true)
    expect(routes.isCourseList("/courses")).toBe(false)
    expect(["/catalogue/7", "/courses/7"].map(routes.isCatalogueRead)).toEqual([true, false])
    expect(routes.publicCourseSlugOf("/open/intro")).toBe("intro")
    expect(routes.publicCourseSlugOf("/public/courses/intro")).toBeUndefined()
    expect(routes.lessonProgressIdOf("/my/7/done")).toBe("7")
    expect(routes.lessonProgressIdOf("/me/lessons/7/progress")).toBeUndefined()
  })

  it("fail to compile against a contract without one of the endpoints they serve", () => {
    const withoutCourse = HttpApi.make("partial")
      .add(HttpApiGroup.make("courses").add(HttpApiEndpoint.get("list", "/courses")))
      .add(HttpApiGroup.make("public").add(HttpApiEndpoint.get("course", "/public/courses/:slug")))
      .add(HttpApiGroup.make("learning").add(HttpApiEndpoint.put("recordProgress", "/me/lessons/:lesson_id/progress")))
    // @ts-expect-error: the contract has no `courses.get`, which the catalogue's caching headers serve.
    expect(() => routesOf(withoutCourse)).toThrow(TypeError)
  })

  it("read a path template as the router does: a parameter is one segment, other characters are themselves", () => {
    expect(matcherOf("/a.b/:id").test("/a.b/x")).toBe(true)
    expect(matcherOf("/a.b/:id").test("/aXb/x")).toBe(false)
    expect(matcherOf("/a/:id").test("/a/x/y")).toBe(false)
  })

  it("are written nowhere else in the http package: no source but the contract spells one of its paths", () => {
    const paths = Object.values(CoursekitApi.groups).flatMap((group) => Object.values(group.endpoints).map((endpoint) => endpoint.path as string))
    // Each path and each fixed part before a parameter (`/public/courses/`), as a literal would copy it.
    const copies = new Set(paths.flatMap((path) => {
      const cut = path.indexOf(":")
      return cut === -1 ? [path] : [path, path.slice(0, cut)]
    }).filter((path) => path !== "/"))
    const src = join(import.meta.dirname, "../src")
    const found: Array<string> = []
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name === "CoursekitApi.ts") continue
      const file = join(entry.parentPath, entry.name)
      // Comments may name routes; code may not.
      const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1")
      for (const [, literal] of code.matchAll(/["'`]([^"'`\n]*)["'`]/g)) {
        if (copies.has(literal!)) found.push(`${relative(src, file)}: "${literal}"`)
      }
      // A regular expression that spells a route's first segment (`/^\/courses(\/[^/]+)?$/`).
      for (const [regex] of code.matchAll(/\/\^\\\/[a-z-]+[^\n]*?\/[gimsuy]*(?=[\s,;)])/g)) {
        if (paths.some((path) => regex.includes(`\\/${path.split("/")[1]}`) && path !== "/")) found.push(`${relative(src, file)}: ${regex}`)
      }
    }
    expect(copies.size).toBeGreaterThan(20)
    expect(found).toEqual([])
  })
})
