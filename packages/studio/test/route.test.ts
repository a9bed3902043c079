import { describe, expect, it } from "vitest"
import { hrefOf, type Route, routeOf } from "../src/app/route.ts"

describe("the Studio's views in the URL's fragment", () => {
  it("reads the course list, a course, a lesson, a course's preview and the media library, and writes each back", () => {
    const routes: ReadonlyArray<Route> = [{ _tag: "courses" }, { _tag: "course", id: 12 }, { _tag: "lesson", courseId: 12, lessonId: 7 }, { _tag: "preview", courseId: 12 }, { _tag: "media" }]
    for (const route of routes) expect(routeOf(hrefOf(route))).toEqual(route)
    expect(hrefOf({ _tag: "lesson", courseId: 12, lessonId: 7 })).toBe("#/courses/12/lessons/7")
    expect(hrefOf({ _tag: "preview", courseId: 12 })).toBe("#/courses/12/preview")
  })

  it("anything else is the course list", () => {
    for (const hash of ["", "#", "#/courses/0", "#/courses/12/lessons", "#/courses/12/lessons/x", "#/courses/12/lessons/7/more", "#/courses/12/sections/7", "#/courses/12/preview/x", "#/courses/x/preview", "#/media/3"]) {
      expect(routeOf(hash), hash).toEqual({ _tag: "courses" })
    }
  })
})
