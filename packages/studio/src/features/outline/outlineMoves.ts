/**
 * A course's outline and what each move of it changes: the loose lessons first, then each
 * section with its lessons, in the order the public course shows them. A move names the
 * item, the version it was read at (`If-Match`), where it goes and the fields of the PATCH
 * that puts it there. Positions follow the API's rules: dense (1…n) within each group (a
 * section's lessons, or the loose ones); moving within a group shifts those between,
 * entering a group at p shifts those from p on, leaving one closes the gap.
 *
 * Moving up from the top of a group crosses the section boundary above (the first lesson
 * of a section becomes the last of the group before it, the loose lessons being the first
 * group); moving down from the bottom crosses the one below (the lesson becomes the first
 * of the next group). Empty groups count: a lesson can be moved into an empty section.
 * Plain TypeScript, no React: the outline's view and its tests use it alike.
 */

/** A lesson as the outline shows it. */
export interface OutlineLesson {
  readonly id: number
  readonly title: string
  readonly version: number
  /** Its section, or null for a loose lesson. */
  readonly sectionId: number | null
  readonly position: number
  readonly status: "draft" | "published"
  readonly publishAt: { readonly epochMilliseconds: number } | null
  readonly isPreview: boolean
}

/** A section with its lessons in order. */
export interface OutlineSection {
  readonly id: number
  readonly title: string
  readonly version: number
  readonly position: number
  readonly lessons: ReadonlyArray<OutlineLesson>
}

export interface Outline {
  /** The lessons in no section, shown first. */
  readonly loose: ReadonlyArray<OutlineLesson>
  readonly sections: ReadonlyArray<OutlineSection>
}

/** A group of lessons: a section's id, or null for the loose lessons. */
export type GroupId = number | null

/** Where a lesson is, or goes. */
export interface Place {
  readonly sectionId: GroupId
  readonly position: number
}

/** The fields a lesson move PATCHes: `section_id` only when it changes group. */
export interface LessonPatch {
  readonly section_id?: number | null
  readonly position: number
}

export type Move =
  | {
    readonly _tag: "lesson"
    readonly lesson: OutlineLesson
    readonly from: Place
    readonly to: Place
    readonly patch: LessonPatch
  }
  | {
    readonly _tag: "section"
    readonly section: OutlineSection
    readonly from: number
    readonly to: number
    readonly patch: { readonly position: number }
  }

/** A lesson names a section the outline does not have: the two reads crossed a change. */
export class OutlineMismatch extends Error {
  override readonly name = "OutlineMismatch"
}

/** The lesson and section records as the API lists them, in the fields the outline uses. */
export interface LessonRow {
  readonly id: number
  readonly title: string
  readonly version: number
  readonly section_id: number | null
  readonly position: number
  readonly status: "draft" | "published"
  readonly publish_at: { readonly epochMilliseconds: number } | null
  readonly is_preview: boolean
}

export interface SectionRow {
  readonly id: number
  readonly title: string
  readonly version: number
  readonly position: number
}

const byPosition = <A extends { readonly position: number }>(items: ReadonlyArray<A>) => [...items].sort((a, b) => a.position - b.position)

/** The outline of a course's lessons and sections (each in any order). */
export const outlineOf = (lessons: ReadonlyArray<LessonRow>, sections: ReadonlyArray<SectionRow>): Outline => {
  const known = new Set(sections.map((section) => section.id))
  const stray = lessons.find((lesson) => lesson.section_id !== null && !known.has(lesson.section_id))
  if (stray !== undefined) throw new OutlineMismatch(`Lesson ${stray.id} is in section ${stray.section_id}, which the outline does not have yet.`)
  const lessonOf = (row: LessonRow): OutlineLesson => ({
    id: row.id,
    title: row.title,
    version: row.version,
    sectionId: row.section_id,
    position: row.position,
    status: row.status,
    publishAt: row.publish_at,
    isPreview: row.is_preview
  })
  const inGroup = (group: GroupId) => byPosition(lessons.filter((lesson) => lesson.section_id === group)).map(lessonOf)
  return {
    loose: inGroup(null),
    sections: byPosition(sections).map((section) => ({
      id: section.id,
      title: section.title,
      version: section.version,
      position: section.position,
      lessons: inGroup(section.id)
    }))
  }
}

/** The groups in the order they are shown: the loose lessons, then each section. */
export const groupsOf = (outline: Outline): ReadonlyArray<{ readonly sectionId: GroupId; readonly lessons: ReadonlyArray<OutlineLesson> }> => [
  { sectionId: null, lessons: outline.loose },
  ...outline.sections.map((section) => ({ sectionId: section.id as GroupId, lessons: section.lessons }))
]

const lessonsOf = (outline: Outline, group: GroupId): ReadonlyArray<OutlineLesson> | undefined =>
  group === null ? outline.loose : outline.sections.find((section) => section.id === group)?.lessons

/** Where a lesson is: its group, its place (1 first) and the group's index in the outline. */
export const findLesson = (outline: Outline, lessonId: number) => {
  const groups = groupsOf(outline)
  for (const [groupIndex, group] of groups.entries()) {
    const index = group.lessons.findIndex((lesson) => lesson.id === lessonId)
    if (index !== -1) return { lesson: group.lessons[index]!, sectionId: group.sectionId, position: index + 1, groupIndex, groupSize: group.lessons.length }
  }
  return undefined
}

/**
 * Moving a lesson to `to`: a position past the end of the group means its end (the end
 * after the lesson left, within its own group). Undefined when it would stay where it is.
 */
export const lessonMoveTo = (outline: Outline, lessonId: number, to: Place): Move | undefined => {
  const found = findLesson(outline, lessonId)
  const target = lessonsOf(outline, to.sectionId)
  if (found === undefined || target === undefined) return undefined
  const sameGroup = found.sectionId === to.sectionId
  const last = sameGroup ? target.length : target.length + 1
  const position = Math.min(Math.max(1, to.position), last)
  if (sameGroup && position === found.position) return undefined
  return {
    _tag: "lesson",
    lesson: found.lesson,
    from: { sectionId: found.sectionId, position: found.position },
    to: { sectionId: to.sectionId, position },
    patch: sameGroup ? { position } : { section_id: to.sectionId, position }
  }
}

/** One place up: within its group, or to the end of the group above. Undefined at the very top. */
export const lessonMoveUp = (outline: Outline, lessonId: number): Move | undefined => {
  const found = findLesson(outline, lessonId)
  if (found === undefined) return undefined
  if (found.position > 1) return lessonMoveTo(outline, lessonId, { sectionId: found.sectionId, position: found.position - 1 })
  const above = groupsOf(outline)[found.groupIndex - 1]
  if (above === undefined) return undefined
  return lessonMoveTo(outline, lessonId, { sectionId: above.sectionId, position: above.lessons.length + 1 })
}

/** One place down: within its group, or to the start of the group below. Undefined at the very bottom. */
export const lessonMoveDown = (outline: Outline, lessonId: number): Move | undefined => {
  const found = findLesson(outline, lessonId)
  if (found === undefined) return undefined
  if (found.position < found.groupSize) return lessonMoveTo(outline, lessonId, { sectionId: found.sectionId, position: found.position + 1 })
  const below = groupsOf(outline)[found.groupIndex + 1]
  if (below === undefined) return undefined
  return lessonMoveTo(outline, lessonId, { sectionId: below.sectionId, position: 1 })
}

/** To the end of another group (a section, or null: the loose lessons). Undefined when it is there already. */
export const lessonMoveToSection = (outline: Outline, lessonId: number, sectionId: GroupId): Move | undefined => {
  const found = findLesson(outline, lessonId)
  const target = lessonsOf(outline, sectionId)
  if (found === undefined || target === undefined || found.sectionId === sectionId) return undefined
  return lessonMoveTo(outline, lessonId, { sectionId, position: target.length + 1 })
}

/** A section to `position` among the sections (clamped). Undefined when it would stay. */
export const sectionMoveTo = (outline: Outline, sectionId: number, position: number): Move | undefined => {
  const index = outline.sections.findIndex((section) => section.id === sectionId)
  if (index === -1) return undefined
  const to = Math.min(Math.max(1, position), outline.sections.length)
  if (to === index + 1) return undefined
  return { _tag: "section", section: outline.sections[index]!, from: index + 1, to, patch: { position: to } }
}

export const sectionMoveUp = (outline: Outline, sectionId: number): Move | undefined => {
  const index = outline.sections.findIndex((section) => section.id === sectionId)
  return index < 1 ? undefined : sectionMoveTo(outline, sectionId, index)
}

export const sectionMoveDown = (outline: Outline, sectionId: number): Move | undefined => {
  const index = outline.sections.findIndex((section) => section.id === sectionId)
  return index === -1 || index === outline.sections.length - 1 ? undefined : sectionMoveTo(outline, sectionId, index + 2)
}

const numbered = (lessons: ReadonlyArray<OutlineLesson>): ReadonlyArray<OutlineLesson> =>
  lessons.map((lesson, index) => (lesson.position === index + 1 ? lesson : { ...lesson, position: index + 1 }))

/** The outline as the API stores it after `move` (versions aside: the next read has those). */
export const applyMove = (outline: Outline, move: Move): Outline => {
  if (move._tag === "section") {
    const others = outline.sections.filter((section) => section.id !== move.section.id)
    const moved = outline.sections.find((section) => section.id === move.section.id)
    if (moved === undefined) return outline
    others.splice(move.to - 1, 0, moved)
    return { ...outline, sections: others.map((section, index) => (section.position === index + 1 ? section : { ...section, position: index + 1 })) }
  }
  const found = findLesson(outline, move.lesson.id)
  if (found === undefined) return outline
  const withoutIt = (lessons: ReadonlyArray<OutlineLesson>) => lessons.filter((lesson) => lesson.id !== move.lesson.id)
  const place = (group: GroupId, lessons: ReadonlyArray<OutlineLesson>) => {
    const rest = withoutIt(lessons)
    if (group !== move.to.sectionId) return numbered(rest)
    rest.splice(move.to.position - 1, 0, { ...found.lesson, sectionId: move.to.sectionId })
    return numbered(rest)
  }
  return {
    loose: place(null, outline.loose),
    sections: outline.sections.map((section) => ({ ...section, lessons: place(section.id, section.lessons) }))
  }
}

// --- dragging ---------------------------------------------------------------------------

/** What dnd-kit names: a lesson, a section, or a group's list (where a lesson is dropped at the end). */
export type DragKey = `lesson:${number}` | `section:${number}` | `group:${number | "loose"}`

export const dragKeys = {
  lesson: (id: number): DragKey => `lesson:${id}`,
  section: (id: number): DragKey => `section:${id}`,
  group: (sectionId: GroupId): DragKey => `group:${sectionId ?? "loose"}`
}

export type DragTarget =
  | { readonly _tag: "lesson"; readonly id: number }
  | { readonly _tag: "section"; readonly id: number }
  | { readonly _tag: "group"; readonly sectionId: GroupId }

/** The item a drag key names; undefined for anything else. */
export const dragTargetOf = (key: string | number): DragTarget | undefined => {
  const match = /^(lesson|section|group):([1-9][0-9]*|loose)$/.exec(String(key))
  if (match === null) return undefined
  const [, kind, id] = match as unknown as [string, "lesson" | "section" | "group", string]
  if (kind === "group") return { _tag: "group", sectionId: id === "loose" ? null : Number(id) }
  if (id === "loose") return undefined
  return { _tag: kind, id: Number(id) }
}

/**
 * While a lesson is dragged over another group, the outline the view shows: the lesson
 * moved into that group, before the lesson it is over (after it when `below`), or at the
 * end of the group's list. Within its own group the sortable list shows the shift itself:
 * the outline stays.
 */
export const dragPreview = (preview: Outline, lessonId: number, over: DragTarget, below: boolean): Outline => {
  const found = findLesson(preview, lessonId)
  if (found === undefined) return preview
  let to: Place | undefined
  if (over._tag === "group") {
    if (over.sectionId === found.sectionId) return preview
    to = { sectionId: over.sectionId, position: Number.MAX_SAFE_INTEGER }
  } else if (over._tag === "lesson") {
    const target = findLesson(preview, over.id)
    if (target === undefined || target.sectionId === found.sectionId) return preview
    to = { sectionId: target.sectionId, position: target.position + (below ? 1 : 0) }
  }
  const move = to === undefined ? undefined : lessonMoveTo(preview, lessonId, to)
  return move === undefined ? preview : applyMove(preview, move)
}

/**
 * The move a drop makes, from the outline as stored (`outline`) and as the drag showed it
 * (`preview`): a lesson takes the place of the lesson it was dropped on within the group
 * it is in by then (or stays where the preview put it); a section takes the place of the
 * section it was dropped on. Dropped over nothing (outside the outline), nothing moves.
 * Undefined when nothing changes.
 */
export const dropMove = (outline: Outline, preview: Outline, active: DragTarget, over: DragTarget | undefined): Move | undefined => {
  if (over === undefined) return undefined
  if (active._tag === "section") {
    const overSection = over._tag === "section"
      ? over.id
      : over._tag === "group"
      ? over.sectionId
      : findLesson(outline, over.id)?.sectionId ?? null
    const index = preview.sections.findIndex((section) => section.id === overSection)
    return index === -1 ? undefined : sectionMoveTo(outline, active.id, index + 1)
  }
  if (active._tag !== "lesson") return undefined
  const shown = findLesson(preview, active.id)
  if (shown === undefined) return undefined
  let place: Place = { sectionId: shown.sectionId, position: shown.position }
  if (over._tag === "lesson" && over.id !== active.id) {
    const target = findLesson(preview, over.id)
    if (target !== undefined && target.sectionId === shown.sectionId) place = { sectionId: target.sectionId, position: target.position }
  }
  return lessonMoveTo(outline, active.id, place)
}

// --- words ------------------------------------------------------------------------------

const quoted = (title: string) => `“${title}”`

/** The group's name in a sentence: `in “Basics”`, or among the loose lessons. */
export const groupPhrase = (outline: Outline, sectionId: GroupId): string => {
  if (sectionId === null) return "among the lessons without a section"
  const section = outline.sections.find((candidate) => candidate.id === sectionId)
  return section === undefined ? "in a section" : `in ${quoted(section.title)}`
}

/**
 * What the live region says once a move is stored, read from the outline as the API
 * answered it afterwards (so it says where the item is, not where it was meant to go).
 */
export const movedMessage = (stored: Outline, move: Move): string => {
  if (move._tag === "section") {
    const index = stored.sections.findIndex((section) => section.id === move.section.id)
    if (index === -1) return `Moved section ${quoted(move.section.title)}.`
    return `Moved section ${quoted(stored.sections[index]!.title)} to position ${index + 1} of ${stored.sections.length}.`
  }
  const found = findLesson(stored, move.lesson.id)
  if (found === undefined) return `Moved ${quoted(move.lesson.title)}.`
  return `Moved ${quoted(found.lesson.title)} to position ${found.position} ${groupPhrase(stored, found.sectionId)}.`
}
