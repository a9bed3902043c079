/**
 * The edge writes the public course as it is (`plainJsonOf`) rather than through Schema's
 * encoding (`encodedJsonOf`): for any course the contract allows the two must be the same
 * JSON. Should a field of `PublicCourse` ever encode to something other than itself (a
 * date, a number as a string), this fails until `plainJsonOf` learns it.
 */
import { PublicCourse } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, DateTime, Effect, Schema } from "effect"
import { encodedJsonOf, plainJsonOf } from "../src/handlers/PublicCourseHandlers.ts"

describe("the public course's JSON", () => {
  it.effect("written as it is, is the contract's encoding: 300 generated courses", () =>
    Effect.gen(function*() {
      const courses = yield* Arbitrary.sampleEffect(Arbitrary.schema(PublicCourse), { count: 300, seed: 18 })
      assert.strictEqual(courses.length, 300)
      let expiries = 0
      for (const course of courses) {
        assert.strictEqual(plainJsonOf(course), encodedJsonOf(course))
        for (const lesson of [...course.lessons, ...course.sections.flatMap((section) => section.lessons)]) {
          if (lesson.video_url_expires_at !== null) expiries++
        }
      }
      // The one field that is not its own encoding was among them.
      assert.isAbove(expiries, 10)
    }))

  it.effect("a signed video's expiry is written as the schema's ISO string", () =>
    Effect.gen(function*() {
      // A generated course's fields, with one lesson whose video URL expires at a known instant.
      const [sample] = yield* Arbitrary.sampleEffect(Arbitrary.schema(PublicCourse), { count: 1, seed: 25 })
      const course = Schema.decodeUnknownSync(PublicCourse)({
        ...Schema.encodeSync(PublicCourse)(sample!),
        purchased: true,
        lessons: [{
          id: 2,
          title: "L",
          position: 1,
          is_preview: false,
          access: "purchased",
          content_html: "<p>x</p>",
          video_url: "https://cdn.example/v.mp4?sig=1",
          video_url_expires_at: "2026-11-25T10:00:00.123Z",
          available_at: null
        }],
        sections: []
      })
      assert.isTrue(DateTime.isDateTime(course.lessons[0]!.video_url_expires_at))
      assert.strictEqual(plainJsonOf(course), encodedJsonOf(course))
      assert.include(plainJsonOf(course), `"video_url_expires_at":"2026-11-25T10:00:00.123Z"`)
    }))
})
