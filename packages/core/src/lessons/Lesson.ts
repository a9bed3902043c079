/**
 * Lessons of a course: what is stored, what the admin API shows and accepts.
 *
 * @since 0.1.0
 */
import { DateTime, Schema, Struct } from "effect"
import { staleMessage } from "../editing/Edit.ts"
import { revisionWith } from "../editing/Revision.ts"
import { ContentHtml, CourseId, CourseTitle, maxId, titleMaxLength } from "../catalogue/Course.ts"
import { publishAtField, publishStatusField } from "../catalogue/Publishing.ts"
import { SectionId } from "../catalogue/Section.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import { storableText } from "../shared/StorableText.ts"
import { visibilityOf } from "../media/Upload.ts"

/** Longest accepted lesson title, in characters, after trimming. */
export const lessonTitleMaxLength = titleMaxLength

/** A lesson identifier: a positive integer assigned by the service. */
export const LessonId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxId })).pipe(
  Schema.brand("LessonId"),
  Schema.annotate({ description: "Lesson identifier assigned by the service (a positive integer)." })
)
export type LessonId = typeof LessonId.Type

/**
 * A lesson's place in its group (its section, or the course's loose lessons): 1 is
 * first; a group's positions are always 1…n.
 */
export const LessonPosition = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })).annotate({
  description: "Place in its section (or among the course's loose lessons), 1 first. Positions stay 1…n: inserting " +
    "or moving shifts the others; a position past the end means the end."
})

const LessonSectionId = Schema.NullOr(SectionId).annotate({
  description: "The section the lesson belongs to, or null for the course's loose lessons. Changing it moves the " +
    "lesson to that section, at position (absent: at its end)."
})

// The same rules as a course title.
const LessonTitle = CourseTitle.annotate({ description: `Lesson title, trimmed; 1 to ${titleMaxLength} characters.` })

const VideoKey = Schema.NullOr(Schema.String.check(Schema.isMaxLength(1024), storableText("video_key"))).annotate({
  description: "Storage key of a finalized media file (see /admin/media), or null for no video."
})

/** How a viewer may see a lesson of the public course. */
export const LessonAccess = Schema.Literals(["preview", "purchased", "upcoming", "locked"]).annotate({
  description: "preview: open to everyone; purchased: open because the viewer bought the course; upcoming: bought, " +
    "but released later (available_at), title only until then; locked: title only."
})

/** Most days after a purchase a lesson may wait for (ten years). */
export const maxAvailableAfterDays = 3650

const AvailableAfterDays = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxAvailableAfterDays })).annotate({
  description: `Drip: a buyer's lesson opens this many days (0 to ${maxAvailableAfterDays}) after their purchase, by the ` +
    "database's clock; until then the public course shows it as upcoming, with available_at. null: at once. " +
    "Preview lessons ignore it."
})
export type LessonAccess = typeof LessonAccess.Type

/**
 * The lesson, defined once: every shape below (and the public course's lessons) is
 * derived from these fields (see `RecordVariants`). Optional inputs get their defaults
 * in the `Lessons` use case: no body, no video, not a preview, at the end, published at
 * once. The public course leaves out lessons that are not visible (`Publishing`).
 */
export const LessonFields = RecordVariants.Struct({
  id: RecordVariants.generated(LessonId, ["api", "public"]),
  course_id: RecordVariants.generated(CourseId, ["api"]),
  section_id: RecordVariants.authoredOptional(Schema.NullOr(SectionId), LessonSectionId, ["api"]),
  title: RecordVariants.authored(Schema.String, LessonTitle, ["api", "public"]),
  position: RecordVariants.Field({
    stored: Schema.Int,
    // Absent or past the end: at the end.
    insert: Schema.optional(Schema.Int),
    changes: Schema.optional(Schema.Int),
    create: Schema.optionalKey(LessonPosition),
    update: Schema.optionalKey(LessonPosition),
    api: Schema.Int,
    public: Schema.Int.annotate({
      description: "Place among the lessons shown in its group (its section, or the loose lessons), 1…n: a draft or " +
        "scheduled lesson leaves no gap."
    })
  }),
  is_preview: RecordVariants.authoredOptional(
    Schema.Boolean.annotate({ description: "When true, the public course shows this lesson's content and video to everyone." }),
    Schema.Boolean,
    ["api", "public"]
  ),
  access: RecordVariants.derived(LessonAccess, ["public"]),
  content_html: RecordVariants.Field({
    stored: Schema.String,
    insert: Schema.String,
    changes: Schema.optional(Schema.String),
    create: Schema.optionalKey(ContentHtml),
    update: Schema.optionalKey(ContentHtml),
    api: Schema.String,
    public: Schema.NullOr(Schema.String).annotate({ description: "Null when the lesson is locked." })
  }),
  video_key: RecordVariants.authoredOptional(Schema.NullOr(Schema.String), VideoKey, ["api"]),
  video_url: RecordVariants.Field({
    api: Schema.NullOr(Schema.String).annotate({
      description: "Where to play the video: a public file's permanent URL, or a private file's signed URL valid until " +
        "video_url_expires_at; null without a video."
    }),
    public: Schema.NullOr(Schema.String).annotate({
      description: "Where to play the video (a signed URL for a private file); null when the lesson is locked or has no video."
    })
  }),
  video_url_expires_at: RecordVariants.derived(
    Schema.NullOr(Schema.DateTimeUtcFromString).annotate({
      description: "When the signed video_url of a private video stops working (read the lesson again for a new one); " +
        "null for a public video or no video."
    }),
    ["api", "public"]
  ),
  available_after_days: RecordVariants.authoredNullable(Schema.Int, AvailableAfterDays, ["api"]),
  available_at: RecordVariants.derived(
    Schema.NullOr(Schema.DateTimeUtcFromString).annotate({
      description: "upcoming: when the lesson opens for this viewer (their purchase plus available_after_days); else null."
    }),
    ["public"]
  ),
  status: publishStatusField(["api"], []),
  publish_at: publishAtField(["api"], []),
  version: RecordVariants.version(["api"]),
  created_at: RecordVariants.timestamp(["api"]),
  updated_at: RecordVariants.timestamp(["api"])
})

/** A lesson as stored: everything but the derived `video_url`. */
export const LessonRecord = RecordVariants.extract(LessonFields, "stored")
export type LessonRecord = typeof LessonRecord.Type

/** A lesson as the admin API shows it. */
export const Lesson = RecordVariants.extract(LessonFields, "api").annotate({ identifier: "Lesson" })
export type Lesson = typeof Lesson.Type

/** The body of `POST /courses/{id}/lessons`. */
export const LessonCreate = RecordVariants.extract(LessonFields, "create").annotate({ identifier: "LessonCreate" })
export type LessonCreate = typeof LessonCreate.Type

/** The body of `PATCH /courses/{id}/lessons/{lesson_id}`: the fields to change. */
export const LessonUpdate = RecordVariants.extract(LessonFields, "update").annotate({ identifier: "LessonUpdate" })
export type LessonUpdate = typeof LessonUpdate.Type

/** What the use case hands the repository to create a lesson (HTML already sanitized). */
export const LessonInsert = RecordVariants.extract(LessonFields, "insert")
export type LessonInsert = typeof LessonInsert.Type

/** Fields of a stored lesson that may change; `position` moves it. */
export const LessonChanges = RecordVariants.extract(LessonFields, "changes")
export type LessonChanges = typeof LessonChanges.Type

/** The fields a lesson's revisions keep: what an author writes, and its section. */
export const lessonSnapshotFields = [
  "title",
  "content_html",
  "is_preview",
  "video_key",
  "status",
  "publish_at",
  "section_id",
  "available_after_days"
] as const

/** A lesson's fields as a revision keeps them (`record` of a revision). */
export const LessonSnapshot = Lesson.mapFields(Struct.pick(lessonSnapshotFields)).annotate({ identifier: "LessonSnapshot" })
export type LessonSnapshot = typeof LessonSnapshot.Type

const snapshotFields = RecordVariants.pick(LessonSnapshot)
const encodeSnapshot = Schema.encodeSync(LessonSnapshot)

/** A lesson's fields as its revisions keep them, encoded (JSON values), as stores keep them. */
export const lessonSnapshotOf = (record: LessonRecord): Readonly<Record<string, unknown>> =>
  encodeSnapshot(snapshotFields(record))

/** A revision of a lesson, with its snapshot. */
export const LessonRevision = revisionWith(LessonSnapshot).annotate({ identifier: "LessonRevision" })
export type LessonRevision = typeof LessonRevision.Type

/** A lesson of the public course. */
export const PublicLesson = RecordVariants.extract(LessonFields, "public").annotate({ identifier: "PublicLesson" })
export type PublicLesson = typeof PublicLesson.Type

/**
 * A lesson as the public course may show it, as the repository reads it: only lessons
 * visible now are read. For a viewer without access to the whole course,
 * `content_html` and `video_key` of lessons that are not previews are null.
 */
export const ViewerLesson = LessonRecord.mapFields((fields) => ({
  id: fields.id,
  section_id: fields.section_id,
  // The section's, read in the same statement as the lessons: one consistent outline.
  section_title: Schema.NullOr(Schema.String),
  section_position: Schema.NullOr(Schema.Int),
  title: fields.title,
  position: fields.position,
  is_preview: fields.is_preview,
  content_html: Schema.NullOr(fields.content_html),
  video_key: fields.video_key,
  // A bought lesson its drip has not released yet: when it opens (its body is not read).
  available_at: Schema.NullOr(Schema.DateTimeUtcFromDate)
}))
export type ViewerLesson = typeof ViewerLesson.Type

/**
 * How a lesson stands for a viewer at `now` (drip, DECISIONS' locked lessons): a preview
 * is open to everyone; any other lesson only to a buyer (`purchasedAt`), once
 * `available_after_days` have passed since the purchase (null: at once). A buyer's lesson
 * not open yet has `availableAt`, when it opens; every other closed lesson null. The
 * in-memory stores decide by it; the SQL ones write the same rule (`PgLessonRepo.openTo`).
 */
export const accessAt = (
  lesson: { readonly is_preview: boolean; readonly available_after_days: number | null },
  purchasedAt: DateTime.Utc | null | undefined,
  now: DateTime.Utc
): { readonly open: boolean; readonly availableAt: DateTime.Utc | null } => {
  if (lesson.is_preview) return { open: true, availableAt: null }
  if (purchasedAt == null) return { open: false, availableAt: null }
  const opensAt = lesson.available_after_days === null ? purchasedAt : DateTime.add(purchasedAt, { days: lesson.available_after_days })
  return DateTime.isGreaterThan(opensAt, now) ? { open: false, availableAt: opensAt } : { open: true, availableAt: null }
}

/**
 * A lesson as a viewer sees it at `now` (see {@link accessAt}): its body and video only
 * when open, its section's title and place beside it. One mapping for the in-memory
 * store's public course and the Studio's preview.
 */
export const viewerLessonAt = (
  lesson: LessonRecord,
  section: { readonly title: string; readonly position: number } | undefined,
  purchasedAt: DateTime.Utc | null | undefined,
  now: DateTime.Utc
): ViewerLesson => {
  const { availableAt, open } = accessAt(lesson, purchasedAt, now)
  return {
    id: lesson.id,
    section_id: lesson.section_id,
    section_title: section?.title ?? null,
    section_position: section?.position ?? null,
    title: lesson.title,
    position: lesson.position,
    is_preview: lesson.is_preview,
    content_html: open ? lesson.content_html : null,
    video_key: open ? lesson.video_key : null,
    available_at: availableAt
  }
}

// --- errors ---------------------------------------------------------------------------

/** The course has no lesson with this id. */
export class LessonNotFound extends Schema.TaggedError<LessonNotFound>()(
  "LessonNotFound",
  { course_id: CourseId, id: LessonId },
  { description: "The course has no lesson with this id." }
) {
  override get message(): string {
    return `Course ${this.course_id} has no lesson with id ${this.id}.`
  }
}

/**
 * Whether `lesson` is paid content whose video anyone may watch: not a preview, and its
 * video public. Lessons are never made so (`PublicVideoOnPaidLesson`).
 */
export const hasPublicVideoWhilePaid = (lesson: { readonly is_preview: boolean; readonly video_key: string | null }): boolean =>
  !lesson.is_preview && lesson.video_key !== null && visibilityOf(lesson.video_key) === "public"

/**
 * A lesson that is not a preview would use a public video: anyone with its permanent URL
 * could watch paid content.
 */
export class PublicVideoOnPaidLesson extends Schema.TaggedError<PublicVideoOnPaidLesson>()(
  "PublicVideoOnPaidLesson",
  { video_key: Schema.String },
  { description: "A lesson that is not a preview may not use a public video." }
) {
  override get message(): string {
    return `The video ${JSON.stringify(this.video_key)} is public: anyone with its URL can watch it, so only a preview ` +
      `lesson may use it. Upload the video with visibility "private" for a paid lesson, or make the lesson a preview.`
  }
}

/** `video_key` names no finalized media file. */
export class VideoNotFound extends Schema.TaggedError<VideoNotFound>()(
  "VideoNotFound",
  { video_key: Schema.String },
  { description: "video_key must name a finalized media file." }
) {
  override get message(): string {
    return `video_key ${JSON.stringify(this.video_key)} names no finalized media file.`
  }
}

/**
 * A write named versions of the lesson (`If-Match`) it is no longer at. Nothing was
 * written; `current` is the lesson as it is now.
 */
export class LessonVersionMismatch extends Schema.TaggedError<LessonVersionMismatch>()(
  "LessonVersionMismatch",
  { course_id: CourseId, id: LessonId, current: Lesson },
  { description: "The lesson changed since the version the write names." }
) {
  override get message(): string {
    return staleMessage("lesson", this.id, this.current.version)
  }
}
