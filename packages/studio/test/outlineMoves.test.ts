import { describe, expect, it } from "vitest"
import {
  applyMove,
  dragKeys,
  dragPreview,
  dragTargetOf,
  dropMove,
  type LessonRow,
  lessonMoveDown,
  lessonMoveTo,
  lessonMoveToSection,
  lessonMoveUp,
  type Move,
  movedMessage,
  type Outline,
  outlineOf,
  OutlineMismatch,
  sectionMoveDown,
  sectionMoveTo,
  sectionMoveUp,
  type SectionRow
} from "../src/features/outline/outlineMoves.ts"

const lesson = (id: number, title: string, section_id: number | null, position: number, version = 1): LessonRow => ({
  id,
  title,
  version,
  section_id,
  position,
  status: "published",
  publish_at: null,
  is_preview: false
})
const section = (id: number, title: string, position: number, version = 1): SectionRow => ({ id, title, version, position })

/**
 * Loose: Welcome(1), Setup(2). Basics (section 10): Intro(3), Values(4), Loops(5).
 * Empty (section 20): nothing. Advanced (section 30): Traits(6).
 * The rows come in shuffled, as nothing promises their order.
 */
const outline = outlineOf(
  [
    lesson(5, "Loops", 10, 3, 4),
    lesson(6, "Traits", 30, 1),
    lesson(2, "Setup", null, 2),
    lesson(3, "Intro", 10, 1, 7),
    lesson(1, "Welcome", null, 1),
    lesson(4, "Values", 10, 2)
  ],
  [section(30, "Advanced", 3), section(10, "Basics", 1, 2), section(20, "Empty", 2)]
)

/** Each group's titles, in order: what the author sees. */
const titles = (value: Outline) => [
  ["(loose)", ...value.loose.map((item) => item.title)],
  ...value.sections.map((item) => [item.title, ...item.lessons.map((l) => l.title)])
]

/** Positions are 1…n in every group, and lessons know their group. */
const expectDense = (value: Outline) => {
  expect(value.loose.map((item) => item.position)).toEqual(value.loose.map((_, index) => index + 1))
  expect(value.loose.every((item) => item.sectionId === null)).toBe(true)
  expect(value.sections.map((item) => item.position)).toEqual(value.sections.map((_, index) => index + 1))
  for (const item of value.sections) {
    expect(item.lessons.map((l) => l.position)).toEqual(item.lessons.map((_, index) => index + 1))
    expect(item.lessons.every((l) => l.sectionId === item.id)).toBe(true)
  }
}

const patchOf = (move: Move | undefined) => (move === undefined ? undefined : { to: move.to, patch: move.patch })

describe("the outline", () => {
  it("orders the loose lessons first, then each section with its lessons, all by position", () => {
    expect(titles(outline)).toEqual([
      ["(loose)", "Welcome", "Setup"],
      ["Basics", "Intro", "Values", "Loops"],
      ["Empty"],
      ["Advanced", "Traits"]
    ])
    expectDense(outline)
  })

  it("refuses a lesson in a section it was not given (the two reads crossed a change)", () => {
    expect(() => outlineOf([lesson(1, "Orphan", 99, 1)], [])).toThrow(OutlineMismatch)
  })
})

describe("moving a lesson up and down", () => {
  it("within its group: one position, naming only the position and the version it was read at", () => {
    const up = lessonMoveUp(outline, 4)!
    expect(up).toMatchObject({ _tag: "lesson", from: { sectionId: 10, position: 2 }, to: { sectionId: 10, position: 1 }, patch: { position: 1 } })
    expect(up.patch).not.toHaveProperty("section_id")
    expect(up._tag === "lesson" && up.lesson.version).toBe(1)
    const down = lessonMoveDown(outline, 3)
    expect(patchOf(down)).toEqual({ to: { sectionId: 10, position: 2 }, patch: { position: 2 } })
    expect(down?._tag === "lesson" && down.lesson.version).toBe(7)
  })

  it("up from the top of a section: to the end of the group above, across the boundary", () => {
    // Intro, first of Basics, becomes the last loose lesson.
    expect(patchOf(lessonMoveUp(outline, 3))).toEqual({ to: { sectionId: null, position: 3 }, patch: { section_id: null, position: 3 } })
    // Traits, first of Advanced, goes into the empty section above it.
    expect(patchOf(lessonMoveUp(outline, 6))).toEqual({ to: { sectionId: 20, position: 1 }, patch: { section_id: 20, position: 1 } })
  })

  it("down from the bottom of a group: to the start of the group below, empty ones included", () => {
    // Setup, the last loose lesson, becomes the first of Basics.
    expect(patchOf(lessonMoveDown(outline, 2))).toEqual({ to: { sectionId: 10, position: 1 }, patch: { section_id: 10, position: 1 } })
    // Loops, last of Basics, goes into Empty.
    expect(patchOf(lessonMoveDown(outline, 5))).toEqual({ to: { sectionId: 20, position: 1 }, patch: { section_id: 20, position: 1 } })
  })

  it("nothing above the first lesson of the outline, nothing below the last", () => {
    expect(lessonMoveUp(outline, 1)).toBeUndefined()
    expect(lessonMoveDown(outline, 6)).toBeUndefined()
    expect(lessonMoveUp(outline, 999)).toBeUndefined()
  })

  it("without loose lessons, the first lesson of the first section can still become loose", () => {
    const sectioned = outlineOf([lesson(3, "Intro", 10, 1)], [section(10, "Basics", 1)])
    expect(patchOf(lessonMoveUp(sectioned, 3))).toEqual({ to: { sectionId: null, position: 1 }, patch: { section_id: null, position: 1 } })
    expect(lessonMoveDown(sectioned, 3)).toBeUndefined()
  })

  it("walking a lesson down the whole outline visits every place once, and the outline stays dense", () => {
    let current = outline
    const visited: Array<string> = []
    for (let move = lessonMoveDown(current, 1); move?._tag === "lesson"; move = lessonMoveDown(current, 1)) {
      current = applyMove(current, move)
      expectDense(current)
      visited.push(`${move.to.sectionId ?? "loose"}:${move.to.position}`)
    }
    expect(visited).toEqual(["loose:2", "10:1", "10:2", "10:3", "10:4", "20:1", "30:1", "30:2"])
    expect(titles(current).at(-1)).toEqual(["Advanced", "Traits", "Welcome"])
    // And back up to where it started.
    for (let move = lessonMoveUp(current, 1); move !== undefined; move = lessonMoveUp(current, 1)) current = applyMove(current, move)
    expect(titles(current)).toEqual(titles(outline))
  })
})

describe("moving a lesson to a section (the section picker)", () => {
  it("goes to the end of that section, or of the loose lessons", () => {
    expect(patchOf(lessonMoveToSection(outline, 1, 10))).toEqual({ to: { sectionId: 10, position: 4 }, patch: { section_id: 10, position: 4 } })
    expect(patchOf(lessonMoveToSection(outline, 4, 20))).toEqual({ to: { sectionId: 20, position: 1 }, patch: { section_id: 20, position: 1 } })
    expect(patchOf(lessonMoveToSection(outline, 6, null))).toEqual({ to: { sectionId: null, position: 3 }, patch: { section_id: null, position: 3 } })
  })

  it("its own section, or a section that is not there, is no move", () => {
    expect(lessonMoveToSection(outline, 4, 10)).toBeUndefined()
    expect(lessonMoveToSection(outline, 1, null)).toBeUndefined()
    expect(lessonMoveToSection(outline, 1, 77)).toBeUndefined()
  })

  it("a position past the end is the end; before the start is the start", () => {
    expect(patchOf(lessonMoveTo(outline, 3, { sectionId: 10, position: 99 }))).toEqual({ to: { sectionId: 10, position: 3 }, patch: { position: 3 } })
    expect(patchOf(lessonMoveTo(outline, 3, { sectionId: 30, position: 99 }))).toEqual({ to: { sectionId: 30, position: 2 }, patch: { section_id: 30, position: 2 } })
    expect(patchOf(lessonMoveTo(outline, 5, { sectionId: 10, position: 0 }))).toEqual({ to: { sectionId: 10, position: 1 }, patch: { position: 1 } })
    expect(lessonMoveTo(outline, 3, { sectionId: 10, position: 1 })).toBeUndefined()
  })
})

describe("what a move leaves", () => {
  it("within a group, the lessons between shift; across groups, the gap closes and the others make room", () => {
    const within = applyMove(outline, lessonMoveTo(outline, 5, { sectionId: 10, position: 1 })!)
    expect(titles(within)[1]).toEqual(["Basics", "Loops", "Intro", "Values"])
    const across = applyMove(outline, lessonMoveTo(outline, 4, { sectionId: null, position: 1 })!)
    expect(titles(across).slice(0, 2)).toEqual([["(loose)", "Values", "Welcome", "Setup"], ["Basics", "Intro", "Loops"]])
    expectDense(within)
    expectDense(across)
  })
})

describe("moving a section", () => {
  it("up and down among the sections, by position only; none past either end", () => {
    expect(sectionMoveUp(outline, 10)).toBeUndefined()
    expect(sectionMoveDown(outline, 30)).toBeUndefined()
    const down = sectionMoveDown(outline, 10)!
    expect(down).toMatchObject({ _tag: "section", from: 1, to: 2, patch: { position: 2 } })
    expect(down._tag === "section" && down.section.version).toBe(2)
    expect(sectionMoveUp(outline, 30)).toMatchObject({ from: 3, to: 2, patch: { position: 2 } })
  })

  it("its lessons go with it", () => {
    const moved = applyMove(outline, sectionMoveTo(outline, 30, 1)!)
    expect(titles(moved)).toEqual([["(loose)", "Welcome", "Setup"], ["Advanced", "Traits"], ["Basics", "Intro", "Values", "Loops"], ["Empty"]])
    expectDense(moved)
  })
})

describe("dragging", () => {
  it("names lessons, sections and groups by keys, and reads them back", () => {
    expect(dragTargetOf(dragKeys.lesson(7))).toEqual({ _tag: "lesson", id: 7 })
    expect(dragTargetOf(dragKeys.section(3))).toEqual({ _tag: "section", id: 3 })
    expect(dragTargetOf(dragKeys.group(null))).toEqual({ _tag: "group", sectionId: null })
    expect(dragTargetOf(dragKeys.group(3))).toEqual({ _tag: "group", sectionId: 3 })
    for (const other of ["lesson:loose", "lesson:0", "chapter:1", "", 5]) expect(dragTargetOf(other)).toBeUndefined()
  })

  it("within a group, a lesson dropped on another takes its place", () => {
    const move = dropMove(outline, outline, { _tag: "lesson", id: 3 }, { _tag: "lesson", id: 5 })
    expect(patchOf(move)).toEqual({ to: { sectionId: 10, position: 3 }, patch: { position: 3 } })
    expect(dropMove(outline, outline, { _tag: "lesson", id: 3 }, { _tag: "lesson", id: 3 })).toBeUndefined()
    expect(dropMove(outline, outline, { _tag: "lesson", id: 3 }, undefined)).toBeUndefined()
  })

  it("over another group the preview carries the lesson there, and the drop sends its section and place", () => {
    // Welcome dragged over Values (Basics), in its upper half: before it.
    const before = dragPreview(outline, 1, { _tag: "lesson", id: 4 }, false)
    expect(titles(before).slice(0, 2)).toEqual([["(loose)", "Setup"], ["Basics", "Intro", "Welcome", "Values", "Loops"]])
    expect(patchOf(dropMove(outline, before, { _tag: "lesson", id: 1 }, { _tag: "lesson", id: 1 })))
      .toEqual({ to: { sectionId: 10, position: 2 }, patch: { section_id: 10, position: 2 } })
    // Below it instead, then dropped on Loops within Basics: Loops' place.
    const below = dragPreview(outline, 1, { _tag: "lesson", id: 4 }, true)
    expect(titles(below)[1]).toEqual(["Basics", "Intro", "Values", "Welcome", "Loops"])
    expect(patchOf(dropMove(outline, below, { _tag: "lesson", id: 1 }, { _tag: "lesson", id: 5 })))
      .toEqual({ to: { sectionId: 10, position: 4 }, patch: { section_id: 10, position: 4 } })
    // Over the empty section's list: into it.
    const empty = dragPreview(outline, 4, { _tag: "group", sectionId: 20 }, false)
    expect(titles(empty)[2]).toEqual(["Empty", "Values"])
    expect(patchOf(dropMove(outline, empty, { _tag: "lesson", id: 4 }, { _tag: "group", sectionId: 20 })))
      .toEqual({ to: { sectionId: 20, position: 1 }, patch: { section_id: 20, position: 1 } })
    // Over its own group's list, or itself: no change.
    expect(dragPreview(outline, 4, { _tag: "group", sectionId: 10 }, false)).toBe(outline)
    expect(dragPreview(outline, 4, { _tag: "lesson", id: 3 }, false)).toBe(outline)
  })

  it("dropped over nothing (outside the outline) is no move, wherever the preview had it", () => {
    const away = dragPreview(outline, 4, { _tag: "group", sectionId: 20 }, false)
    expect(dropMove(outline, away, { _tag: "lesson", id: 4 }, undefined)).toBeUndefined()
    expect(dropMove(outline, outline, { _tag: "section", id: 10 }, undefined)).toBeUndefined()
  })

  it("dragged out and back to where it was is no move", () => {
    const away = dragPreview(outline, 4, { _tag: "group", sectionId: 20 }, false)
    const back = dragPreview(away, 4, { _tag: "lesson", id: 5 }, false)
    expect(titles(back)).toEqual(titles(outline))
    expect(dropMove(outline, back, { _tag: "lesson", id: 4 }, { _tag: "lesson", id: 4 })).toBeUndefined()
  })

  it("a section dropped on another section takes its place", () => {
    expect(dropMove(outline, outline, { _tag: "section", id: 10 }, { _tag: "section", id: 30 })).toMatchObject({ to: 3, patch: { position: 3 } })
    expect(dropMove(outline, outline, { _tag: "section", id: 30 }, { _tag: "section", id: 10 })).toMatchObject({ to: 1, patch: { position: 1 } })
    expect(dropMove(outline, outline, { _tag: "section", id: 10 }, { _tag: "section", id: 10 })).toBeUndefined()
  })
})

describe("what the live region says", () => {
  it("where the item is in the outline as stored", () => {
    const move = lessonMoveDown(outline, 2)!
    expect(movedMessage(applyMove(outline, move), move)).toBe("Moved “Setup” to position 1 in “Basics”.")
    const loose = lessonMoveUp(outline, 3)!
    expect(movedMessage(applyMove(outline, loose), loose)).toBe("Moved “Intro” to position 3 among the lessons without a section.")
    const sectionMove = sectionMoveDown(outline, 10)!
    expect(movedMessage(applyMove(outline, sectionMove), sectionMove)).toBe("Moved section “Basics” to position 2 of 3.")
  })

  it("says where the stored outline has it, even when that is not where the move aimed", () => {
    const move = lessonMoveDown(outline, 2)!
    // Someone else moved it meanwhile: the stored outline has it elsewhere.
    expect(movedMessage(outline, move)).toBe("Moved “Setup” to position 2 among the lessons without a section.")
  })
})
