/**
 * The conformance suite every `LessonRepo` adapter runs, next to the `CourseRepo` of the
 * same store (lessons belong to courses: an insert needs one, a course's deletion takes
 * its lessons). Each test creates its own courses, so adapters can share one database.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Random } from "effect"
import type { CourseId } from "../Course.ts"
import { CourseRepo } from "../CourseRepo.ts"
import type { LessonId } from "../Lesson.ts"
import { LessonRepo, type NewLesson } from "../LessonRepo.ts"

const newCourse = Effect.gen(function*() {
  const courses = yield* CourseRepo
  const title = `Lessons ${Math.random().toString(36).slice(2, 10)}`
  return (yield* courses.insert({ title, slugBase: title.toLowerCase().replace(/ /g, "-"), content_html: "" })).id
})

const lesson = (title: string, extra: Partial<NewLesson> = {}): NewLesson => ({
  title,
  content_html: `<p>${title} body</p>`,
  video_key: null,
  is_preview: false,
  ...extra
})

/** Titles in position order, and a check that positions are exactly 1…n. */
const order = (courseId: CourseId) =>
  Effect.gen(function*() {
    const lessons = yield* (yield* LessonRepo).list(courseId)
    assert.deepStrictEqual(lessons.map((lesson) => lesson.position), lessons.map((_, i) => i + 1), "positions are 1…n")
    return lessons.map((lesson) => lesson.title)
  })

/** Registers the `LessonRepo` conformance tests for `repoLayer` (with its `CourseRepo`) under `name`. */
export const lessonRepoSuite = <E>(name: string, repoLayer: Layer.Layer<LessonRepo | CourseRepo, E>): void => {
  describe(`LessonRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("insert appends by default, stores every field, and reads back the same", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const first = yield* repo.insert(courseId, lesson("one", { is_preview: true, video_key: "media/a.mp4" }))
          const second = yield* repo.insert(courseId, lesson("two"))
          assert.strictEqual(first.course_id, courseId)
          assert.strictEqual(first.title, "one")
          assert.strictEqual(first.content_html, "<p>one body</p>")
          assert.strictEqual(first.video_key, "media/a.mp4")
          assert.isTrue(first.is_preview)
          assert.deepStrictEqual([first.position, second.position], [1, 2])
          assert.isNull(second.video_key)
          assert.isFalse(second.is_preview)
          assert.deepStrictEqual(yield* repo.findById(courseId, first.id), first)
          assert.deepStrictEqual(yield* repo.list(courseId), [first, second])
        }))

      it.effect("insert at a position shifts the rest; past the end means the end", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          yield* repo.insert(courseId, lesson("b"))
          yield* repo.insert(courseId, lesson("a", { position: 1 }))
          yield* repo.insert(courseId, lesson("d", { position: 99 }))
          yield* repo.insert(courseId, lesson("c", { position: 3 }))
          assert.deepStrictEqual(yield* order(courseId), ["a", "b", "c", "d"])
        }))

      it.effect("update changes fields and moves: down, up, past the end; others shift", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const ids: Array<LessonId> = []
          for (const title of ["a", "b", "c", "d", "e"]) ids.push((yield* repo.insert(courseId, lesson(title))).id)
          const changed = yield* repo.update(courseId, ids[0]!, { title: "A", is_preview: true, video_key: "media/v.mp4", content_html: "<p>new</p>" })
          assert.deepStrictEqual([changed.title, changed.is_preview, changed.video_key, changed.content_html, changed.position], [
            "A",
            true,
            "media/v.mp4",
            "<p>new</p>",
            1
          ])
          assert.isNull((yield* repo.update(courseId, ids[0]!, { video_key: null })).video_key)
          yield* repo.update(courseId, ids[0]!, { position: 4 })
          assert.deepStrictEqual(yield* order(courseId), ["b", "c", "d", "A", "e"])
          yield* repo.update(courseId, ids[4]!, { position: 1 })
          assert.deepStrictEqual(yield* order(courseId), ["e", "b", "c", "d", "A"])
          yield* repo.update(courseId, ids[1]!, { position: 1000 })
          assert.deepStrictEqual(yield* order(courseId), ["e", "c", "d", "A", "b"])
          const unchanged = yield* repo.update(courseId, ids[2]!, {})
          assert.strictEqual(unchanged.position, 2)
        }))

      it.effect("delete closes the gap; unknown or another course's lessons are LessonNotFound", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const other = yield* newCourse
          const ids: Array<LessonId> = []
          for (const title of ["a", "b", "c"]) ids.push((yield* repo.insert(courseId, lesson(title))).id)
          yield* repo.delete(courseId, ids[1]!)
          assert.deepStrictEqual(yield* order(courseId), ["a", "c"])
          for (
            const attempt of [
              repo.delete(courseId, ids[1]!),
              repo.findById(courseId, ids[1]!),
              repo.findById(other, ids[0]!),
              repo.update(other, ids[0]!, { title: "x" }),
              repo.delete(other, ids[0]!)
            ]
          ) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error._tag, "LessonNotFound")
          }
          assert.deepStrictEqual(yield* order(courseId), ["a", "c"])
        }))

      it.effect("an unknown course: insert is CourseNotFound, list is empty", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courses = yield* CourseRepo
          const courseId = yield* newCourse
          yield* courses.delete(courseId)
          const error = yield* Effect.flip(repo.insert(courseId, lesson("x")))
          assert.strictEqual(error._tag, "CourseNotFound")
          assert.deepStrictEqual(yield* repo.list(courseId), [])
        }))

      it.effect("deleting the course deletes its lessons", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const kept = yield* newCourse
          const gone = yield* repo.insert(courseId, lesson("gone"))
          yield* repo.insert(kept, lesson("kept"))
          yield* (yield* CourseRepo).delete(courseId)
          assert.deepStrictEqual(yield* repo.list(courseId), [])
          assert.deepStrictEqual(yield* repo.listForViewer(courseId, true), [])
          assert.strictEqual((yield* Effect.flip(repo.findById(courseId, gone.id)))._tag, "LessonNotFound")
          assert.deepStrictEqual(yield* order(kept), ["kept"])
        }))

      it.effect("listForViewer: without access, bodies of non-preview lessons are null; with it, all are there", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          yield* repo.insert(courseId, lesson("free", { is_preview: true, video_key: "media/free.mp4" }))
          yield* repo.insert(courseId, lesson("paid", { video_key: "media/paid.mp4" }))
          const locked = yield* repo.listForViewer(courseId, false)
          assert.deepStrictEqual(locked.map((row) => [row.title, row.position, row.is_preview, row.content_html, row.video_key]), [
            ["free", 1, true, "<p>free body</p>", "media/free.mp4"],
            ["paid", 2, false, null, null]
          ])
          const open = yield* repo.listForViewer(courseId, true)
          assert.deepStrictEqual(open.map((row) => [row.title, row.content_html, row.video_key]), [
            ["free", "<p>free body</p>", "media/free.mp4"],
            ["paid", "<p>paid body</p>", "media/paid.mp4"]
          ])
          assert.deepStrictEqual(open.map((row) => row.id), (yield* repo.list(courseId)).map((row) => row.id))
        }))

      it.effect("concurrent inserts, moves and deletes on one course keep positions 1…n and unique", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const inserted = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => repo.insert(courseId, lesson(`l${i}`, { position: i % 3 === 0 ? 1 : undefined })),
            { concurrency: "unbounded" }
          )
          assert.strictEqual((yield* order(courseId)).length, 20)
          const ids = inserted.map((row) => row.id)
          const moves = yield* Effect.forEach(Array.from({ length: 40 }), () =>
            Effect.gen(function*() {
              return { id: ids[yield* Random.nextIntBetween(0, 19)]!, position: yield* Random.nextIntBetween(1, 22) }
            }))
          yield* Effect.all([
            Effect.forEach(
              moves,
              // A move of a lesson deleted meanwhile is LessonNotFound; nothing else may fail.
              (move) => repo.update(courseId, move.id, { position: move.position }).pipe(Effect.catchTag("LessonNotFound", () => Effect.void)),
              { concurrency: "unbounded", discard: true }
            ),
            Effect.forEach(ids.slice(15), (id) => repo.delete(courseId, id), { concurrency: "unbounded", discard: true })
          ], { concurrency: "unbounded" })
          const titles = yield* order(courseId)
          assert.strictEqual(titles.length, 15)
          assert.strictEqual(new Set(titles).size, 15)
        }))
    })
  })
}
