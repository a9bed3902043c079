import {
  type Course,
  CourseNotFound,
  CourseVersionMismatch,
  type Lesson,
  LessonVersionMismatch,
  RevisionNotFound,
  UnknownLesson,
  LessonLocked,
  InvalidLearnerCursor,
  type RevisionId,
  type Section,
  SectionVersionMismatch,
  type CourseId,
  CourseSlugNotFound,
  FileTooLarge,
  GenerationFailed,
  GenerationInterrupted,
  HtmlTooComplex,
  HtmlTooLong,
  InvalidSearchCursor,
  type LessonId,
  LessonNotFound,
  MediaInUse,
  MediaNotFound,
  MultipartCompleted,
  MultipartNotFound,
  NoModelConfigured,
  PartOutOfRange,
  PartRejected,
  PersistenceError,
  PublicVideoOnPaidLesson,
  SanitizerOverloaded,
  StorageError,
  UnsupportedFileType,
  UploadExpired,
  UploadNotFound,
  UploadNotReceived,
  type SectionId,
  SectionNotEmpty,
  SectionNotFound,
  UnknownSection,
  VideoNotFound
} from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { type DomainError, domainProblems, problemOf, problemsFor } from "../src/problems/DomainProblems.ts"
import { problemTitles } from "../src/problems/Problems.ts"

const at = DateTime.makeUnsafe("2026-11-28T12:00:00Z")
const stamps = { version: 4, created_at: at, updated_at: at }
const course: Course = {
  id: 7 as CourseId, title: "T", slug: "t", content_html: "", description: null, thumbnail_key: null, thumbnail_url: null,
  status: "published", publish_at: null, ...stamps
}
const lesson: Lesson = {
  id: 3 as LessonId, course_id: 7 as CourseId, section_id: null, title: "L", position: 1, content_html: "", video_key: null,
  video_url: null, video_url_expires_at: null, is_preview: false, status: "published", publish_at: null, available_after_days: null, ...stamps
}
const section: Section = { id: 2 as SectionId, course_id: 7 as CourseId, title: "S", position: 1, ...stamps }

const one: { readonly [Tag in DomainError["_tag"]]: Extract<DomainError, { readonly _tag: Tag }> } = {
  CourseNotFound: new CourseNotFound({ id: 7 as CourseId }),
  CourseSlugNotFound: new CourseSlugNotFound({ slug: "intro" }),
  CourseVersionMismatch: new CourseVersionMismatch({ id: 7 as CourseId, current: course }),
  LessonVersionMismatch: new LessonVersionMismatch({ course_id: 7 as CourseId, id: 3 as LessonId, current: lesson }),
  SectionVersionMismatch: new SectionVersionMismatch({ course_id: 7 as CourseId, id: 2 as SectionId, current: section }),
  RevisionNotFound: new RevisionNotFound({ revision_id: 9 as RevisionId }),
  UnknownLesson: new UnknownLesson({ lesson_id: 3 as LessonId }),
  LessonLocked: new LessonLocked({ lesson_id: 3 as LessonId, available_at: at }),
  InvalidLearnerCursor: new InvalidLearnerCursor(),
  LessonNotFound: new LessonNotFound({ course_id: 7 as CourseId, id: 3 as LessonId }),
  SectionNotFound: new SectionNotFound({ course_id: 7 as CourseId, id: 2 as SectionId }),
  UnknownSection: new UnknownSection({ course_id: 7 as CourseId, section_id: 2 as SectionId }),
  SectionNotEmpty: new SectionNotEmpty({ course_id: 7 as CourseId, id: 2 as SectionId, lessons: 3 }),
  VideoNotFound: new VideoNotFound({ video_key: "media/x.mp4" }),
  PublicVideoOnPaidLesson: new PublicVideoOnPaidLesson({ video_key: "media/x.mp4" }),
  MediaNotFound: new MediaNotFound({ file_key: "media/x.mp4" }),
  MultipartNotFound: new MultipartNotFound({ upload_id: "0b9d4c1e-5f2a-4c3b-9d8e-7f6a5b4c3d2e" }),
  MultipartCompleted: new MultipartCompleted({ upload_id: "0b9d4c1e-5f2a-4c3b-9d8e-7f6a5b4c3d2e", file_key: "media/x.mp4" }),
  PartOutOfRange: new PartOutOfRange({ part_number: 7, part_count: 6, field: "part_numbers" }),
  PartRejected: new PartRejected({ reason: "missing_or_wrong_etag", part_number: 3 }),
  MediaInUse: new MediaInUse({ file_key: "media/x.mp4", lessons: [{ course_id: 7 as CourseId, lesson_id: 3 }], thumbnail_of: null }),
  PersistenceError: new PersistenceError({ operation: "find course", cause: new Error("secret internals") }),
  StorageError: new StorageError({ operation: "head object", cause: new Error("secret internals") }),
  UploadNotFound: new UploadNotFound({ file_key: "media/y.png" }),
  UploadNotReceived: new UploadNotReceived({ file_key: "media/y.png" }),
  UploadExpired: new UploadExpired({ file_key: "media/y.png" }),
  FileTooLarge: new FileTooLarge({ size_bytes: 11, max_bytes: 10 }),
  UnsupportedFileType: new UnsupportedFileType({ content_type: "image/svg+xml", allowed: ["image/png"] }),
  GenerationFailed: new GenerationFailed({ attempts: [] }),
  GenerationInterrupted: new GenerationInterrupted({ provider: "openai", model: "m", outcome: "network_error", attempts: [] }),
  NoModelConfigured: new NoModelConfigured({ hint: "Set AI_PRIMARY_PROVIDER." }),
  InvalidSearchCursor: new InvalidSearchCursor(),
  HtmlTooComplex: new HtmlTooComplex({ reason: "elements", detail: "The HTML has more than 100000 elements." }),
  HtmlTooLong: new HtmlTooLong({ limit: 1_000_000 }),
  SanitizerOverloaded: new SanitizerOverloaded()
}

const expectedStatus: { readonly [Tag in DomainError["_tag"]]: number } = {
  CourseNotFound: 404,
  CourseSlugNotFound: 404,
  CourseVersionMismatch: 412,
  LessonVersionMismatch: 412,
  SectionVersionMismatch: 412,
  RevisionNotFound: 404,
  UnknownLesson: 404,
  LessonLocked: 403,
  InvalidLearnerCursor: 400,
  LessonNotFound: 404,
  SectionNotFound: 404,
  UnknownSection: 422,
  SectionNotEmpty: 409,
  UploadNotFound: 404,
  UploadNotReceived: 409,
  UploadExpired: 410,
  FileTooLarge: 413,
  UnsupportedFileType: 415,
  VideoNotFound: 422,
  PublicVideoOnPaidLesson: 422,
  MediaNotFound: 404,
  MediaInUse: 409,
  MultipartNotFound: 404,
  MultipartCompleted: 409,
  PartOutOfRange: 422,
  PartRejected: 409,
  GenerationFailed: 502,
  GenerationInterrupted: 502,
  PersistenceError: 503,
  StorageError: 503,
  NoModelConfigured: 503,
  InvalidSearchCursor: 400,
  HtmlTooComplex: 422,
  HtmlTooLong: 422,
  SanitizerOverloaded: 503
}

describe("DomainProblems: the table of the core's errors", () => {
  for (const tag of Object.keys(one) as Array<DomainError["_tag"]>) {
    it.effect(`${tag} becomes the problem class the contract declares for it, with its status and title`, () =>
      Effect.gen(function*() {
        const problem = (yield* problemOf(one[tag])) as { status: number; title: string; detail: string }
        assert.instanceOf(problem, domainProblems[tag].problem as never)
        assert.strictEqual(problem.status, expectedStatus[tag])
        assert.strictEqual(problem.title, problemTitles[problem.status as keyof typeof problemTitles])
        assert.notInclude(problem.detail, "secret internals")
      }))
  }

  it("problemsFor names each problem class once, in the order of first mention", () => {
    assert.deepStrictEqual(
      problemsFor("CourseNotFound", "LessonNotFound", "PersistenceError", "StorageError", "UploadNotReceived"),
      [domainProblems.CourseNotFound.problem, domainProblems.PersistenceError.problem, domainProblems.UploadNotReceived.problem]
    )
  })

  it.effect("the 422 of a part past the last names the field of the request it came in: part_numbers or parts", () =>
    Effect.gen(function*() {
      for (const field of ["part_numbers", "parts"] as const) {
        const problem = yield* problemOf(new PartOutOfRange({ part_number: 7, part_count: 6, field }))
        assert.deepStrictEqual(problem.errors, [{ path: `body.${field}`, message: "Part 7 does not exist: the upload has 6 parts." }])
      }
    }))

  it.effect("a search cursor the service did not write is a 400 naming query.cursor, as a query that fails its schema", () =>
    Effect.gen(function*() {
      const problem = yield* problemOf(one.InvalidSearchCursor)
      assert.deepStrictEqual(problem.errors, [{ path: "query.cursor", message: one.InvalidSearchCursor.message }])
      assert.strictEqual(problem.detail, `Invalid request query: query.cursor: ${one.InvalidSearchCursor.message}`)
    }))

  it.effect("the 422 of an unknown video says where to upload it and points at body.video_key", () =>
    Effect.gen(function*() {
      const problem = yield* problemOf(one.VideoNotFound)
      assert.strictEqual(
        problem.detail,
        `video_key "media/x.mp4" names no finalized media file: upload it through /admin/media/upload-url and /admin/media/finalize-upload first.`
      )
      assert.deepStrictEqual(problem.errors, [{ path: "body.video_key", message: problem.detail }])
    }))
})
