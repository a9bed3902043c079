import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { CourseRepo, defaultRevisionPolicy, LessonRepo, publishedNow } from "../../src/index.ts"
import { newLesson } from "../../src/testing/lessons/LessonFixtures.ts"

const repos = LessonRepo.layerMemory.pipe(Layer.provideMerge(CourseRepo.layerMemory))

describe("autosave runs", () => {
  it.effect("10,000 autosaves of one lesson, one a second, keep one revision per 10-minute run, each with its run's latest content", () =>
    Effect.gen(function*() {
      const courses = yield* CourseRepo
      const lessons = yield* LessonRepo
      const course = yield* courses.insert({ ...publishedNow, title: "Typing", slugBase: "typing", content_html: "" })
      const lesson = yield* lessons.insert(course.id, newLesson("typed"), { author: "ada" })
      const saves = 10_000
      for (let n = 1; n <= saves; n++) {
        yield* TestClock.adjust(Duration.seconds(1))
        yield* lessons.update(course.id, lesson.id, { content_html: `<p>${n}</p>` }, { author: "ada", autosave: true })
      }
      const window = Duration.toSeconds(defaultRevisionPolicy.autosaveWindow)
      // Save n (at second n) continues the run begun at second 1 + k·600 while within it.
      const runs = Math.ceil(saves / window)
      assert.strictEqual(runs, 17)
      const revisions = yield* lessons.revisions(course.id, lesson.id, { cursor: undefined, limit: 50 })
      assert.strictEqual(revisions.length, runs + 1)
      assert.deepStrictEqual(revisions.at(-1)!.autosave, false)
      const autosaves = revisions.slice(0, -1).reverse()
      for (const [k, revision] of autosaves.entries()) {
        const last = Math.min((k + 1) * window, saves)
        assert.strictEqual(revision.autosave, true)
        // Version 1 was the creation; save n made version n + 1.
        assert.strictEqual(revision.version, last + 1)
        const stored = yield* lessons.revision(course.id, lesson.id, revision.revision_id)
        assert.strictEqual(stored.record.content_html, `<p>${last}</p>`)
      }
    }).pipe(Effect.provide(repos)), 60_000)
})
