/**
 * The course: the catalogue's unit. Schemas use the JSON field names of the
 * specification (snake_case) so the same values travel from the database to the wire
 * without renaming.
 *
 * @since 0.1.0
 */
import { Schema, Struct } from "effect"
import { defaultHtmlLimits } from "../html/HtmlLimits.ts"
import { type CatalogueAudience, publishAtField, publishStatusField } from "./Publishing.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import { storableText } from "../shared/StorableText.ts"
import { staleMessage } from "../editing/Edit.ts"
import { revisionWith } from "../editing/Revision.ts"
import { maxId } from "../shared/Ids.ts"

/** Longest accepted title, in characters, after trimming. */
export const titleMaxLength = 200
/**
 * Longest HTML body, in characters (about 1 MB of ASCII), as sent and as stored: the
 * sanitizer's length limit, so that every stored body can be written back.
 */
export const contentHtmlMaxLength = defaultHtmlLimits.maxLength
/** Longest accepted course description, in characters, after trimming. */
export const descriptionMaxLength = 500
/** Page size of the course list when the caller names none. */
export const defaultPageSize = 10
/** Largest page of the course list. */
export const maxPageSize = 50

/** The largest id a table holds (PostgreSQL `integer`). */
export { maxId }

/** A course identifier: a positive integer assigned by the service. */
export const CourseId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxId })).pipe(
  Schema.brand("CourseId"),
  Schema.annotate({ description: "Course identifier assigned by the service (a positive integer)." })
)
export type CourseId = typeof CourseId.Type


/** A course title as accepted on input: trimmed, 1..200 characters. */
export const CourseTitle = Schema.Trim.check(
  Schema.isNonEmpty({ message: "title must not be empty" }),
  storableText("title"),
  Schema.isMaxLength(titleMaxLength, { message: `title must be at most ${titleMaxLength} characters` })
).pipe(Schema.annotate({ description: `Course title, trimmed; 1 to ${titleMaxLength} characters.` }))

/** A course description as accepted on input: plain text, trimmed, 0..500 characters. */
export const CourseDescription = Schema.Trim.check(
  storableText("description"),
  Schema.isMaxLength(descriptionMaxLength, { message: `description must be at most ${descriptionMaxLength} characters` })
).pipe(Schema.annotate({
  description: `Plain text (not HTML: clients show it as written), trimmed; at most ${descriptionMaxLength} characters. ` +
    "null or absent: none."
}))

/** An HTML body as accepted on input. */
export const ContentHtml = Schema.String.check(
  storableText("content_html"),
  Schema.isMaxLength(contentHtmlMaxLength, {
    message: `content_html must be at most ${contentHtmlMaxLength} characters`
  })
).pipe(Schema.annotate({
  description: `HTML body; at most ${contentHtmlMaxLength} characters, as sent and once sanitized (a body that grows ` +
    `past it, or has more than ${defaultHtmlLimits.maxElements} elements, is a 422). Sanitized before it is stored ` +
    "(allow-listed tags, attributes, classes and URL schemes; no scripts, handlers or styles): " +
    "responses show what was stored."
}))

/**
 * The course, defined once: every shape below is derived from these fields (see
 * `RecordVariants`).
 */
export const CourseFields = RecordVariants.Struct({
  id: RecordVariants.generated(CourseId, ["api", "listItem", "public"]),
  title: RecordVariants.authored(Schema.String, CourseTitle, ["api", "listItem", "public"]),
  slug: RecordVariants.generated(
    Schema.String.annotate({ description: "Generated from the title at creation; unique; never changes afterwards." }),
    ["api", "listItem", "public"]
  ),
  content_html: RecordVariants.authored(Schema.String, ContentHtml, ["api", "public"]),
  description: RecordVariants.authoredNullable(Schema.String, CourseDescription, ["api", "public"]),
  thumbnail_key: RecordVariants.maintained(
    Schema.NullOr(Schema.String).annotate({ description: "Storage key of the thumbnail; null until an upload is finalized." }),
    ["api"]
  ),
  thumbnail_url: RecordVariants.derived(
    Schema.NullOr(Schema.String).annotate({ description: "Public address of the thumbnail; null until an upload is finalized." }),
    ["api", "listItem", "public"]
  ),
  status: publishStatusField(["api"], ["listItem"]),
  publish_at: publishAtField(["api"], ["listItem"]),
  version: RecordVariants.version(["api"], ["listItem"]),
  created_at: RecordVariants.timestamp(["api"]),
  updated_at: RecordVariants.timestamp(["api"])
})

/** A course as stored: everything but the derived `thumbnail_url`. */
export const CourseRecord = RecordVariants.extract(CourseFields, "stored")
export type CourseRecord = typeof CourseRecord.Type

/** The specification's CourseResponse, plus creation and update instants. */
export const Course = RecordVariants.extract(CourseFields, "api").annotate({ identifier: "Course" })
export type Course = typeof Course.Type

/** An element of the course list: no body, no storage key; `status` and `publish_at` for admins only. */
export const CourseListItem = RecordVariants.extract(CourseFields, "listItem").annotate({ identifier: "CourseListItem" })
export type CourseListItem = typeof CourseListItem.Type

/** A row of the course list as stored: the fields the list item shows, and the key its thumbnail's URL is made from. */
export const CourseListRow = RecordVariants.storedFor(CourseRecord, CourseListItem, ["thumbnail_key"])
export type CourseListRow = typeof CourseListRow.Type

/** The body of `POST /courses`. */
export const CourseCreate = RecordVariants.extract(CourseFields, "create").annotate({ identifier: "CourseCreate" })
export type CourseCreate = typeof CourseCreate.Type

/** The body of `PATCH /courses/{id}`: the fields to change. The slug never changes. */
export const CourseUpdate = RecordVariants.extract(CourseFields, "update").annotate({ identifier: "CourseUpdate" })
export type CourseUpdate = typeof CourseUpdate.Type

/** What the use cases hand the repository to create a course (besides the slug's base). */
export const CourseInsert = RecordVariants.extract(CourseFields, "insert")
export type CourseInsert = typeof CourseInsert.Type

/** Fields of a stored course that may change. The slug is not among them. */
export const CourseChanges = RecordVariants.extract(CourseFields, "changes")
export type CourseChanges = typeof CourseChanges.Type

/** The fields a course's revisions keep: what an author writes, and its thumbnail. */
export const courseSnapshotFields = ["title", "description", "content_html", "status", "publish_at", "thumbnail_key"] as const

/** A course's fields as a revision keeps them (`record` of a revision). */
export const CourseSnapshot = Course.mapFields(Struct.pick(courseSnapshotFields)).annotate({ identifier: "CourseSnapshot" })
export type CourseSnapshot = typeof CourseSnapshot.Type

const snapshotFields = RecordVariants.pick(CourseSnapshot)
const encodeSnapshot = Schema.encodeSync(CourseSnapshot)

/** A course's fields as its revisions keep them, encoded (JSON values), as stores keep them. */
export const courseSnapshotOf = (record: CourseRecord): Readonly<Record<string, unknown>> =>
  encodeSnapshot(snapshotFields(record))

/** A revision of a course, with its snapshot. */
export const CourseRevision = revisionWith(CourseSnapshot).annotate({ identifier: "CourseRevision" })
export type CourseRevision = typeof CourseRevision.Type

/** What students see of a course (the public course adds `purchased` and its lessons). */
export const CoursePublicView = RecordVariants.extract(CourseFields, "public")

/**
 * A request for one page of the course list: ids ≥ `cursor`, ascending, of the courses
 * `audience` may see (the public: visible now; admins: all, or those of a status).
 */
export interface CoursePageRequest {
  readonly cursor: CourseId | undefined
  readonly limit: number
  readonly audience: CatalogueAudience
}

/**
 * One page of the course list, the cursor of the next page, if any, and the catalogue
 * `version` the page was read at (see `Courses.version`).
 */
export interface CoursePage {
  readonly items: ReadonlyArray<CourseListItem>
  readonly next: CourseId | undefined
  readonly version: string
}

/** No course has this id. */
export class CourseNotFound extends Schema.TaggedError<CourseNotFound>()(
  "CourseNotFound",
  { id: CourseId },
  { description: "No course has this id." }
) {
  override get message(): string {
    return `No course has id ${this.id}.`
  }
}

/** No course has this slug. */
export class CourseSlugNotFound extends Schema.TaggedError<CourseSlugNotFound>()(
  "CourseSlugNotFound",
  { slug: Schema.String },
  { description: "No course has this slug." }
) {
  override get message(): string {
    return `No course has the slug ${JSON.stringify(this.slug)}.`
  }
}

/**
 * A write named versions of the course (`If-Match`) it is no longer at: someone else
 * changed it meanwhile. Nothing was written; `current` is the course as it is now.
 */
export class CourseVersionMismatch extends Schema.TaggedError<CourseVersionMismatch>()(
  "CourseVersionMismatch",
  { id: CourseId, current: Course },
  { description: "The course changed since the version the write names." }
) {
  override get message(): string {
    return staleMessage("course", this.id, this.current.version)
  }
}
