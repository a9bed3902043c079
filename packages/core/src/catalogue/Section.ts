/**
 * Sections of a course: ordered groups of its lessons ("Week 1", "Basics"). A lesson
 * belongs to one section or to none (the course's loose lessons); positions are dense
 * within each group, as a course's lessons were before sections.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { CourseId, CourseTitle, maxId, titleMaxLength } from "./Course.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import { staleMessage } from "../editing/Edit.ts"

/** A section identifier: a positive integer assigned by the service. */
export const SectionId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxId })).pipe(
  Schema.brand("SectionId"),
  Schema.annotate({ description: "Section identifier assigned by the service (a positive integer)." })
)
export type SectionId = typeof SectionId.Type

/** A section's place in its course: 1 is first; a course's section positions are always 1…n. */
export const SectionPosition = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })).annotate({
  description: "Place among the course's sections, 1 first. Positions stay 1…n: inserting or moving shifts the " +
    "others; a position past the end means the end."
})

const SectionTitle = CourseTitle.annotate({ description: `Section title, trimmed; 1 to ${titleMaxLength} characters.` })

/** The section, defined once; every shape below is derived from these fields. */
export const SectionFields = RecordVariants.Struct({
  id: RecordVariants.generated(SectionId, ["api", "public"]),
  course_id: RecordVariants.generated(CourseId, ["api"]),
  title: RecordVariants.authored(Schema.String, SectionTitle, ["api", "public"]),
  position: RecordVariants.Field({
    stored: Schema.Int,
    // Absent or past the end: at the end.
    insert: Schema.optional(Schema.Int),
    changes: Schema.optional(Schema.Int),
    create: Schema.optionalKey(SectionPosition),
    update: Schema.optionalKey(SectionPosition),
    api: Schema.Int,
    public: Schema.Int
  }),
  version: RecordVariants.version(["api"]),
  created_at: RecordVariants.timestamp(["api"]),
  updated_at: RecordVariants.timestamp(["api"])
})

/** A section as stored. */
export const SectionRecord = RecordVariants.extract(SectionFields, "stored")
export type SectionRecord = typeof SectionRecord.Type

/** A section as the admin API shows it. */
export const Section = RecordVariants.extract(SectionFields, "api").annotate({ identifier: "Section" })
export type Section = typeof Section.Type

/** The body of `POST /courses/{id}/sections`. */
export const SectionCreate = RecordVariants.extract(SectionFields, "create").annotate({ identifier: "SectionCreate" })
export type SectionCreate = typeof SectionCreate.Type

/** The body of `PATCH /courses/{id}/sections/{section_id}`. */
export const SectionUpdate = RecordVariants.extract(SectionFields, "update").annotate({ identifier: "SectionUpdate" })
export type SectionUpdate = typeof SectionUpdate.Type

/** What the use case hands the repository to create a section. */
export const SectionInsert = RecordVariants.extract(SectionFields, "insert")
export type SectionInsert = typeof SectionInsert.Type

/** Fields of a stored section that may change; `position` moves it. */
export const SectionChanges = RecordVariants.extract(SectionFields, "changes")
export type SectionChanges = typeof SectionChanges.Type

/** A section of the public course, without its lessons (`PublicCourse` adds them). */
export const PublicSectionView = RecordVariants.extract(SectionFields, "public")

// --- errors ---------------------------------------------------------------------------

/** The course has no section with this id (named in the path). */
export class SectionNotFound extends Schema.TaggedError<SectionNotFound>()(
  "SectionNotFound",
  { course_id: CourseId, id: SectionId },
  { description: "The course has no section with this id." }
) {
  override get message(): string {
    return `Course ${this.course_id} has no section with id ${this.id}.`
  }
}

/** A lesson's `section_id` names no section of its course. */
export class UnknownSection extends Schema.TaggedError<UnknownSection>()(
  "UnknownSection",
  { course_id: CourseId, section_id: SectionId },
  { description: "section_id must name a section of the lesson's course." }
) {
  override get message(): string {
    return `section_id ${this.section_id} names no section of course ${this.course_id}.`
  }
}

/** A section that still has lessons was to be deleted without saying where they go. */
export class SectionNotEmpty extends Schema.TaggedError<SectionNotEmpty>()(
  "SectionNotEmpty",
  { course_id: CourseId, id: SectionId, lessons: Schema.Int },
  { description: "The section still has lessons." }
) {
  override get message(): string {
    return `Section ${this.id} still has ${this.lessons} lesson${this.lessons === 1 ? "" : "s"}: move them out first, or ` +
      "delete it detaching them (they become loose lessons of the course, appended in their order)."
  }
}

/**
 * A write named versions of the section (`If-Match`) it is no longer at. Nothing was
 * written; `current` is the section as it is now.
 */
export class SectionVersionMismatch extends Schema.TaggedError<SectionVersionMismatch>()(
  "SectionVersionMismatch",
  { course_id: CourseId, id: SectionId, current: Section },
  { description: "The section changed since the version the write names." }
) {
  override get message(): string {
    return staleMessage("section", this.id, this.current.version)
  }
}
