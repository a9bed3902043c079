/**
 * Path and query parameters as text. An id has one spelling: its canonical decimal form
 * (`12`). JavaScript's number parsing would also read `012`, `+12`, `1.2e1` and `12.0` as
 * course 12 — one resource under many URLs, including for DELETE — so anything else is a
 * 400. Text parameters refuse what the database cannot store (NUL, unpaired surrogates)
 * before any I/O.
 *
 * @since 0.1.0
 */
import { CourseId, LessonId, MediaFileId, RevisionId, maxId, maxPageSize, SectionId, Slug, storableText, UserId } from "@coursekit/core"
import { Schema, SchemaTransformation } from "effect"

/**
 * `id` as a path or query value: canonical decimal digits, decoded to the id schema. The
 * OpenAPI document shows parameters as plain strings (patterns are not rendered there),
 * so the description states the form and the range.
 */
const decimalText = (what: string, range: readonly [number, number], maxDigits: number) =>
  Schema.String.check(
    Schema.isPattern(new RegExp(`^[1-9][0-9]{0,${maxDigits - 1}}$`), {
      message: `${what} must be a positive whole number written in decimal digits, without sign, leading zeros or exponent`
    })
  ).annotate({
    description: `${what[0]!.toUpperCase()}${what.slice(1)}: ${range[0]} to ${range[1]}, in decimal digits without sign, ` +
      "leading zeros or exponent (anything else is a 400)."
  })

const canonicalDecimal = <S extends Schema.Top & { readonly Type: number; readonly Encoded: number }>(
  id: S,
  what: string,
  range: readonly [number, number],
  maxDigits: number
) => decimalText(what, range, maxDigits).pipe(Schema.decodeTo(id, SchemaTransformation.numberFromString))

/**
 * A page's cursor that is an id, kept as its text: what the previous page's `Link` names
 * and the client's `nextCursor` hands out, so that every paged call takes the cursor as
 * text (issue #37). Checked here as the id is (a 400 otherwise); the handler reads the id
 * with `courseOfCursor` and the like.
 */
const idCursor = (what: string, range: readonly [number, number], maxDigits: number) =>
  decimalText(what, range, maxDigits).check(
    Schema.makeFilter((text) => !/^[0-9]+$/.test(text) || Number(text) <= range[1] || `${what} must be at most ${range[1]}`)
  )

/** What a checked cursor names (undefined: the first page). */
const ofCursor = <A>(make: (text: string) => A) => (cursor: string | undefined): A | undefined =>
  cursor === undefined ? undefined : make(cursor)

export const courseOfCursor = ofCursor((text) => CourseId.make(Number(text)))
export const revisionOfCursor = ofCursor((text) => RevisionId.make(Number(text)))
export const mediaOfCursor = ofCursor((text) => MediaFileId.make(Number(text)))
export const userOfCursor = ofCursor((text) => UserId.make(text))

/** A course id in a path or query. */
export const CourseIdParam = canonicalDecimal(CourseId, "the course id", [1, maxId], 10)

/** A lesson id in a path. */
export const LessonIdParam = canonicalDecimal(LessonId, "the lesson id", [1, maxId], 10)

/** A section id in a path. */
export const SectionIdParam = canonicalDecimal(SectionId, "the section id", [1, maxId], 10)

/** A course id as a page's cursor (the course list's). */
export const CourseCursorParam = idCursor("the course id", [1, maxId], 10)

/** The opaque cursor of the learner's courses, as a query parameter. */
export const LearnerCursorParam = Schema.String.check(Schema.isMaxLength(64), storableText("cursor"))

/** A revision id in a path. */
export const RevisionIdParam = canonicalDecimal(RevisionId, "the revision id", [1, maxId], 10)

/** A revision id as a page's cursor (the revisions'). */
export const RevisionCursorParam = idCursor("the revision id", [1, maxId], 10)

/** A media file id as a page's cursor (the media library's). */
export const MediaCursorParam = idCursor("the media file id", [1, Number.MAX_SAFE_INTEGER], 16)

/** A user id as a page's cursor (a course's learners'): checked as a user id is, kept as text. */
export const UserCursorParam = Schema.String.check(
  Schema.makeFilter((text) => Schema.is(UserId)(text) || "the cursor must be a user id as the previous page's Link names it")
)

/** A page size in a query: 1 to the largest page. */
export const PageLimitParam = canonicalDecimal(
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxPageSize })),
  "the page size (default 10)",
  [1, maxPageSize],
  String(maxPageSize).length
)

/** A course slug in a path: text the database can store, no longer than a slug can be. */
export const SlugParam = Schema.String.check(
  Schema.isMaxLength(Slug.maxLength, { message: `a slug is at most ${Slug.maxLength} characters` }),
  storableText("the slug")
).annotate({ description: `The course's slug (at most ${Slug.maxLength} characters).` })
