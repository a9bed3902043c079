import { describe, expect, it } from "vitest"
import { hrefOf, type Route, routeOf } from "../src/app/route.ts"

describe("the Studio's views in the URL's fragment", () => {
  it("reads the course list, a course, a lesson and the media library, and writes each back", () => {
    const routes: ReadonlyArray<Route> = [{ _tag: "courses" }, { _tag: "course", id: 12 }, { _tag: "lesson", courseId: 12, lessonId: 7 }, { _tag: "media" }]
    for (const route of routes) expect(routeOf(hrefOf(route))).toEqual(route)
    expect(hrefOf({ _tag: "lesson", courseId: 12, lessonId: 7 })).toBe("#/courses/12/lessons/7")
  })

  it("anything else is the course list", () => {
    for (const hash of ["", "#", "#/courses/0", "#/courses/12/lessons", "#/courses/12/lessons/x", "#/courses/12/lessons/7/more", "#/courses/12/sections/7", "#/media/3"]) {
      expect(routeOf(hash), hash).toEqual({ _tag: "courses" })
    }
  })
})
