/**
 * The lesson use cases of the admin API: create, list, change (and move) and delete the
 * lessons of a course.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { CourseId, CourseNotFound } from "./Course.ts"
import { CourseRepo } from "./CourseRepo.ts"
import { FileUrl } from "./FileUrl.ts"
import { HtmlSanitizer } from "./HtmlSanitizer.ts"
import { type Lesson, type LessonCreate, type LessonId, type LessonNotFound, type LessonRecord, type LessonUpdate, VideoNotFound } from "./Lesson.ts"
import { LessonRepo } from "./LessonRepo.ts"
import { MediaRepo } from "./MediaRepo.ts"
import type { PersistenceError } from "./PersistenceError.ts"

/**
 * Lessons. `content_html` is sanitized on every write (stages 2 and 3, for HTML a person
 * wrote); `video_key` must name a finalized media file (`VideoNotFound` otherwise);
 * `video_url` is the key's public URL.
 */
export class Lessons extends Context.Service<Lessons, {
  create(courseId: CourseId, input: LessonCreate): Effect.Effect<Lesson, CourseNotFound | VideoNotFound | PersistenceError>
  list(courseId: CourseId): Effect.Effect<ReadonlyArray<Lesson>, CourseNotFound | PersistenceError>
  update(
    courseId: CourseId,
    id: LessonId,
    changes: LessonUpdate
  ): Effect.Effect<Lesson, LessonNotFound | VideoNotFound | PersistenceError>
  delete(courseId: CourseId, id: LessonId): Effect.Effect<void, LessonNotFound | PersistenceError>
}>()("@coursekit/core/Lessons") {
  static readonly layerNoDeps: Layer.Layer<Lessons, never, LessonRepo | CourseRepo | MediaRepo | FileUrl | HtmlSanitizer> =
    Layer.effect(
      Lessons,
      Effect.gen(function*() {
        const repo = yield* LessonRepo
        const courses = yield* CourseRepo
        const media = yield* MediaRepo
        const files = yield* FileUrl
        const sanitizer = yield* HtmlSanitizer

        const toLesson = (record: LessonRecord): Lesson => ({
          ...record,
          video_url: record.video_key === null ? null : files.publicUrl(record.video_key)
        })

        const checkVideo = (videoKey: string | null | undefined) =>
          videoKey === null || videoKey === undefined
            ? Effect.void
            : media.findByKey(videoKey).pipe(
              Effect.flatMap((found) => Option.isSome(found) ? Effect.void : Effect.fail(new VideoNotFound({ video_key: videoKey })))
            )

        const create = Effect.fn("Lessons.create")(function*(courseId: CourseId, input: LessonCreate) {
          yield* checkVideo(input.video_key)
          const record = yield* repo.insert(courseId, {
            title: input.title,
            content_html: yield* sanitizer.sanitizeAuthored(input.content_html ?? ""),
            video_key: input.video_key ?? null,
            is_preview: input.is_preview ?? false,
            position: input.position
          })
          return toLesson(record)
        })

        const list = Effect.fn("Lessons.list")(function*(courseId: CourseId) {
          // An unknown course is a 404, not an empty list.
          yield* courses.findById(courseId)
          return (yield* repo.list(courseId)).map(toLesson)
        })

        const update = Effect.fn("Lessons.update")(function*(courseId: CourseId, id: LessonId, changes: LessonUpdate) {
          yield* checkVideo(changes.video_key)
          const record = yield* repo.update(
            courseId,
            id,
            changes.content_html === undefined
              ? changes
              : { ...changes, content_html: yield* sanitizer.sanitizeAuthored(changes.content_html) }
          )
          return toLesson(record)
        })

        const delete_ = Effect.fn("Lessons.delete")(function*(courseId: CourseId, id: LessonId) {
          yield* repo.delete(courseId, id)
        })

        return Lessons.of({ create, list, update, delete: delete_ })
      })
    )
}
