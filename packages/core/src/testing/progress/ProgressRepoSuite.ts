/**
 * The conformance suite every `ProgressRepo` adapter runs, with the course, lesson and
 * purchase repositories of the same store. Each test creates its own courses and users.
 *
 * @since 0.3.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, type Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { CourseId } from "../../catalogue/Course.ts"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"
import type { NewLesson } from "../../lessons/LessonRepo.ts"
import { LessonRepo } from "../../lessons/LessonRepo.ts"
import { PurchaseRepo } from "../../lessons/PurchaseRepo.ts"
import { ProgressRepo } from "../../progress/ProgressRepo.ts"
import { UserId } from "../../shared/Viewer.ts"
import { newLesson } from "../lessons/LessonFixtures.ts"

const tag = () => Math.random().toString(36).slice(2, 10)
const newUser = () => Schema.decodeSync(UserId)(`learner-${tag()}`)

/** A published course with lessons made from `lessons` (titles and extras), in order. */
const courseWith = (...lessons: ReadonlyArray<readonly [string, Partial<NewLesson>?]>) =>
  Effect.gen(function*() {
    const title = `Progress ${tag()}`
    const course = yield* (yield* CourseRepo).insert({ ...publishedNow, title, slugBase: title.toLowerCase().replace(/ /g, "-"), content_html: "" })
    const inserted = []
    for (const [lessonTitle, extra] of lessons) inserted.push(yield* (yield* LessonRepo).insert(course.id, newLesson(lessonTitle, extra ?? {})))
    return { course, lessons: inserted }
  })

const buy = (courseId: CourseId, userId: UserId) =>
  Effect.gen(function*() {
    return yield* (yield* PurchaseRepo).grant(courseId, userId)
  })

/** Registers the `ProgressRepo` conformance tests for `repoLayer` under `name`. */
export const progressRepoSuite = <E>(name: string, repoLayer: Layer.Layer<ProgressRepo | CourseRepo | LessonRepo | PurchaseRepo, E>): void => {
  describe(`ProgressRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("a preview lesson takes anyone's progress: the first completion's instant stays, the position moves, false clears", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const { course, lessons: [preview] } = yield* courseWith(["free", { is_preview: true }], ["paid"])
          const user = newUser()
          const first = yield* repo.record(user, preview!.id, { completed: true })
          assert.deepStrictEqual([first.progress.lesson_id, first.progress.course_id, first.progress.completed, first.progress.position_seconds], [preview!.id, course.id, true, 0])
          assert.isNotNull(first.progress.completed_at)
          assert.isUndefined(first.completed, "one lesson of two is not the course")
          const again = yield* repo.record(user, preview!.id, { completed: true, position_seconds: 12.5 })
          assert.deepStrictEqual(again.progress.completed_at, first.progress.completed_at)
          assert.strictEqual(again.progress.position_seconds, 12.5)
          const moved = yield* repo.record(user, preview!.id, { position_seconds: 30 })
          assert.deepStrictEqual([moved.progress.completed, moved.progress.position_seconds], [true, 30])
          const cleared = yield* repo.record(user, preview!.id, { completed: false })
          assert.deepStrictEqual([cleared.progress.completed, cleared.progress.completed_at, cleared.progress.position_seconds], [false, null, 30])
        }))

      it.effect("a paid lesson needs the purchase, a dripped one its day; drafts, hidden courses and unknown lessons are not found", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const { course, lessons: [paid, dripped, draft] } = yield* courseWith(["paid"], ["week 2", { available_after_days: 7 }], ["draft", { status: "draft" }])
          const user = newUser()
          const locked = yield* Effect.flip(repo.record(user, paid!.id, { completed: true }))
          assert.deepStrictEqual([locked._tag, locked._tag === "LessonLocked" ? locked.available_at : "?"], ["LessonLocked", null])
          const purchase = yield* buy(course.id, user)
          assert.isTrue((yield* repo.record(user, paid!.id, { completed: true })).progress.completed)
          const later = yield* Effect.flip(repo.record(user, dripped!.id, { position_seconds: 1 }))
          assert.strictEqual(later._tag, "LessonLocked")
          if (later._tag === "LessonLocked") assert.deepStrictEqual(later.available_at, DateTime.add(purchase.purchased_at, { days: 7 }))
          assert.strictEqual((yield* Effect.flip(repo.record(user, draft!.id, { completed: true })))._tag, "UnknownLesson")
          assert.strictEqual((yield* Effect.flip(repo.record(user, (draft!.id + 100_000) as never, { completed: true })))._tag, "UnknownLesson")
          yield* (yield* CourseRepo).update(course.id, { status: "draft" })
          assert.strictEqual((yield* Effect.flip(repo.record(user, paid!.id, { completed: true })))._tag, "UnknownLesson")
          // A revoked purchase refuses new progress on paid lessons; the old stays for a renewal.
          yield* (yield* CourseRepo).update(course.id, { status: "published" })
          yield* (yield* PurchaseRepo).revoke(course.id, user)
          assert.strictEqual((yield* Effect.flip(repo.record(user, paid!.id, { position_seconds: 3 })))._tag, "LessonLocked")
          yield* buy(course.id, user)
          const renewed = yield* repo.courseProgress(user, course.id)
          assert.strictEqual(renewed.lessons_completed, 1)
        }))

      it.effect("completing every visible lesson completes the course once; a lesson added later lowers percent but keeps completed_at", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const { course, lessons: [one, two] } = yield* courseWith(["one"], ["two"], ["hidden", { status: "draft" }])
          const user = newUser()
          yield* buy(course.id, user)
          assert.isUndefined((yield* repo.record(user, one!.id, { completed: true })).completed)
          const last = yield* repo.record(user, two!.id, { completed: true })
          assert.deepStrictEqual([last.completed?.user_id, last.completed?.course_id], [user, course.id])
          assert.isUndefined((yield* repo.record(user, two!.id, { completed: true })).completed, "completed once")
          const done = yield* repo.courseProgress(user, course.id)
          assert.deepStrictEqual([done.lessons_total, done.lessons_completed, done.percent, done.next_lesson_id], [2, 2, 100, null])
          assert.deepStrictEqual(done.completed_at, last.completed!.completed_at)
          yield* (yield* LessonRepo).insert(course.id, newLesson("three"))
          const grown = yield* repo.courseProgress(user, course.id)
          assert.deepStrictEqual([grown.lessons_total, grown.lessons_completed, grown.percent], [3, 2, 66])
          assert.deepStrictEqual(grown.completed_at, done.completed_at)
          assert.isUndefined((yield* repo.record(user, one!.id, { completed: false })).completed)
          assert.deepStrictEqual((yield* repo.courseProgress(user, course.id)).completed_at, done.completed_at, "never unset")
        }))

      it.effect("concurrent completions of the last two lessons record one completion", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          for (let round = 0; round < 5; round++) {
            const { course, lessons } = yield* courseWith(["a"], ["b"], ["c"])
            const user = newUser()
            yield* buy(course.id, user)
            yield* repo.record(user, lessons[0]!.id, { completed: true })
            const both = yield* Effect.all([
              repo.record(user, lessons[1]!.id, { completed: true }),
              repo.record(user, lessons[2]!.id, { completed: true })
            ], { concurrency: "unbounded" })
            assert.strictEqual(both.filter((written) => written.completed !== undefined).length, 1)
            assert.isNotNull((yield* repo.courseProgress(user, course.id)).completed_at)
          }
        }))

      it.effect("position saves racing the completions of one course: every write lands, the course completes once", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          for (let round = 0; round < 5; round++) {
            const { course, lessons } = yield* courseWith(["a"], ["b"], ["c"])
            const user = newUser()
            yield* buy(course.id, user)
            const writes = yield* Effect.all(lessons.flatMap((lesson, index) => [
              repo.record(user, lesson.id, { completed: true }),
              repo.record(user, lesson.id, { position_seconds: 10 + index })
            ]), { concurrency: "unbounded" })
            assert.strictEqual(writes.filter((written) => written.completed !== undefined).length, 1)
            const progress = yield* repo.courseProgress(user, course.id)
            assert.isNotNull(progress.completed_at)
            assert.deepStrictEqual(
              progress.lessons.map((lesson) => [lesson.completed_at !== null, lesson.position_seconds]),
              [[true, 10], [true, 11], [true, 12]]
            )
          }
        }))

      it.effect("a course's progress: its visible lessons in outline order, drip's dates, the next open lesson", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const lessonRepo = yield* LessonRepo
          const { course, lessons: [intro, later] } = yield* courseWith(["intro", { is_preview: true }], ["later", { available_after_days: 2 }])
          const section = yield* lessonRepo.insertSection(course.id, { title: "Part 1" })
          const inSection = yield* lessonRepo.insert(course.id, newLesson("in part 1", { section_id: section.id }))
          const user = newUser()
          const anonymousView = yield* repo.courseProgress(user, course.id)
          assert.deepStrictEqual([anonymousView.purchased, anonymousView.next_lesson_id], [false, intro!.id])
          assert.deepStrictEqual(anonymousView.lessons.map((lesson) => lesson.available_at), [null, null, null])
          const purchase = yield* buy(course.id, user)
          yield* repo.record(user, intro!.id, { completed: true, position_seconds: 4 })
          const view = yield* repo.courseProgress(user, course.id)
          assert.deepStrictEqual(view.lessons.map((lesson) => lesson.lesson_id), [intro!.id, later!.id, inSection.id])
          assert.deepStrictEqual(view.lessons.map((lesson) => lesson.position_seconds), [4, 0, 0])
          assert.deepStrictEqual(view.lessons[1]!.available_at, DateTime.add(purchase.purchased_at, { days: 2 }))
          assert.deepStrictEqual([view.purchased, view.lessons_completed, view.percent, view.next_lesson_id], [true, 1, 33, inSection.id])
          yield* (yield* CourseRepo).update(course.id, { status: "draft" })
          assert.strictEqual((yield* Effect.flip(repo.courseProgress(user, course.id)))._tag, "CourseNotFound")
        }))

      it.effect("the learner's courses: bought and visible, most recent activity first, paged; a revoked purchase leaves the list", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const user = newUser()
          const first = yield* courseWith(["a1"], ["a2"])
          const second = yield* courseWith(["b1"])
          const unbought = yield* courseWith(["c1", { is_preview: true }])
          yield* buy(first.course.id, user)
          yield* buy(second.course.id, user)
          // Activity after the purchases, by an in-memory store's test clock too.
          yield* TestClock.adjust(Duration.seconds(1))
          yield* repo.record(user, unbought.lessons[0]!.id, { completed: true })
          yield* repo.record(user, first.lessons[0]!.id, { completed: true })
          const listed = yield* repo.learnerCourses(user, undefined, 10)
          assert.deepStrictEqual(listed.map((row) => row.course.id), [first.course.id, second.course.id])
          assert.deepStrictEqual(listed.map((row) => [row.lessons_total, row.lessons_completed]), [[2, 1], [1, 0]])
          const page = yield* repo.learnerCourses(user, undefined, 1)
          const rest = yield* repo.learnerCourses(user, { last_activity_at: page[0]!.last_activity_at, course_id: page[0]!.course.id }, 10)
          assert.deepStrictEqual(rest.map((row) => row.course.id), [second.course.id])
          yield* (yield* PurchaseRepo).revoke(first.course.id, user)
          assert.deepStrictEqual((yield* repo.learnerCourses(user, undefined, 10)).map((row) => row.course.id), [second.course.id])
        }))

      it.effect("a course's learners: its buyers by user id, paged, with their progress; an unknown course is CourseNotFound", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const { course, lessons } = yield* courseWith(["x"], ["y"])
          const users = [newUser(), newUser(), newUser()].sort()
          for (const user of users) yield* buy(course.id, user)
          yield* repo.record(users[1]!, lessons[0]!.id, { completed: true })
          yield* repo.record(users[1]!, lessons[1]!.id, { completed: true })
          const all = yield* repo.learners(course.id, undefined, 10)
          assert.deepStrictEqual(all.map((row) => [row.user_id, row.lessons_completed, row.percent, row.completed_at !== null]), [
            [users[0], 0, 0, false],
            [users[1], 2, 100, true],
            [users[2], 0, 0, false]
          ])
          assert.deepStrictEqual((yield* repo.learners(course.id, users[0], 1)).map((row) => row.user_id), [users[1]])
          assert.strictEqual((yield* Effect.flip(repo.learners((course.id + 100_000) as CourseId, undefined, 10)))._tag, "CourseNotFound")
        }))

      it.effect("deleting a lesson deletes its progress; deleting the course, all of it", () =>
        Effect.gen(function*() {
          const repo = yield* ProgressRepo
          const { course, lessons: [kept, dropped] } = yield* courseWith(["kept", { is_preview: true }], ["dropped", { is_preview: true }])
          const user = newUser()
          yield* repo.record(user, dropped!.id, { completed: true })
          yield* (yield* LessonRepo).delete(course.id, dropped!.id)
          const view = yield* repo.courseProgress(user, course.id)
          assert.deepStrictEqual([view.lessons_total, view.lessons_completed], [1, 0])
          yield* repo.record(user, kept!.id, { position_seconds: 2 })
          yield* (yield* CourseRepo).delete(course.id)
          assert.isTrue(Exit.isFailure(yield* Effect.exit(repo.courseProgress(user, course.id))))
        }))
    })
  })
}
