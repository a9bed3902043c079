import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Ref, Schema } from "effect"
import {
  CourseCompletionSubscribers,
  type CourseCompletion,
  CourseRepo,
  FileUrl,
  Learning,
  LessonRepo,
  MediaRepo,
  ProgressRepo,
  publishedNow,
  PurchaseRepo,
  UserId
} from "../../src/index.ts"
import { newLesson } from "../../src/testing/lessons/LessonFixtures.ts"

const repos = ProgressRepo.layerMemory.pipe(
  Layer.provideMerge(Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory, MediaRepo.layerMemory)),
  Layer.provideMerge(CourseRepo.layerMemory)
)

describe("Learning: course completion subscribers", () => {
  it.effect("each subscriber hears of a completion once, after the write; a failing one fails neither the request nor the others", () =>
    Effect.gen(function*() {
      const heard = yield* Ref.make<ReadonlyArray<CourseCompletion>>([])
      const told = yield* Deferred.make<void>()
      const subscribers = [
        () => Effect.fail("the certificate service is down"),
        (completion: CourseCompletion) => Effect.andThen(Ref.update(heard, (all) => [...all, completion]), Deferred.succeed(told, undefined))
      ]
      yield* Effect.gen(function*() {
        const learning = yield* Learning
        const courses = yield* CourseRepo
        const lessons = yield* LessonRepo
        const course = yield* courses.insert({ ...publishedNow, title: "Certified", slugBase: "certified", content_html: "" })
        const one = yield* lessons.insert(course.id, newLesson("one", { is_preview: true }))
        const two = yield* lessons.insert(course.id, newLesson("two", { is_preview: true }))
        const user = Schema.decodeSync(UserId)("graduate")
        yield* learning.record(user, one.id, { completed: true })
        const last = yield* learning.record(user, two.id, { completed: true })
        assert.isTrue(last.completed)
        yield* Deferred.await(told)
        yield* learning.record(user, two.id, { completed: true })
        yield* learning.record(user, one.id, { position_seconds: 3 })
        const all = yield* Ref.get(heard)
        assert.deepStrictEqual(all.map((completion) => [completion.user_id, completion.course_id]), [[user, course.id]])
        assert.deepStrictEqual(all[0]!.completed_at, last.completed_at)
      }).pipe(
        Effect.provide(Learning.layerNoDeps.pipe(
          Layer.provideMerge(repos),
          Layer.provide(FileUrl.layer("https://cdn.example.com")),
          Layer.provide(Layer.succeed(CourseCompletionSubscribers, subscribers))
        ))
      )
    }))
})
