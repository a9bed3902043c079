/**
 * The conformance suite every `LessonRepo` adapter runs, next to the `CourseRepo` of the
 * same store (lessons belong to courses: an insert needs one, a course's deletion takes
 * its lessons). Each test creates its own courses, so adapters can share one database.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option, Random } from "effect"
import { TestClock } from "effect/testing"
import type { CourseId } from "../../catalogue/Course.ts"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"
import type { LessonId } from "../../lessons/Lesson.ts"
import { LessonRepo } from "../../lessons/LessonRepo.ts"
import type { SectionNotEmpty } from "../../catalogue/Section.ts"
import { MediaRepo } from "../../media/MediaRepo.ts"
import { newLesson as lesson } from "./LessonFixtures.ts"

/** A purchase every drip has released: the viewer of the tests that say "with access". */
const boughtLongAgo = DateTime.makeUnsafe(0)

const newCourse = Effect.gen(function*() {
  const courses = yield* CourseRepo
  const title = `Lessons ${Math.random().toString(36).slice(2, 10)}`
  return (yield* courses.insert({ ...publishedNow, title, slugBase: title.toLowerCase().replace(/ /g, "-"), content_html: "" })).id
})


/**
 * The store's clock, which decides visibility: the creation instant of a lesson inserted
 * now (every adapter sets `created_at` from the clock it reads visibility by).
 */
const storeNow = (courseId: CourseId) =>
  Effect.gen(function*() {
    const repo = yield* LessonRepo
    const probe = yield* repo.insert(courseId, lesson("clock"))
    yield* repo.delete(courseId, probe.id)
    return probe.created_at
  })

/** Titles in position order, and a check that positions are exactly 1…n. */
const order = (courseId: CourseId) =>
  Effect.gen(function*() {
    const lessons = yield* (yield* LessonRepo).list(courseId)
    assert.deepStrictEqual(lessons.map((lesson) => lesson.position), lessons.map((_, i) => i + 1), "positions are 1…n")
    return lessons.map((lesson) => lesson.title)
  })

/**
 * The course's outline: the sections' titles in order, and each group's lesson titles
 * (`""` for the loose lessons), with a check that every group's positions (and the
 * sections') are exactly 1…n.
 */
const outline = (courseId: CourseId) =>
  Effect.gen(function*() {
    const repo = yield* LessonRepo
    const sections = yield* repo.listSections(courseId)
    assert.deepStrictEqual(sections.map((section) => section.position), sections.map((_, i) => i + 1), "section positions are 1…n")
    const lessons = yield* repo.list(courseId)
    const groups: Record<string, Array<string>> = { "": [] }
    for (const section of sections) groups[section.title] = []
    const titleOf = (sectionId: number | null) => sectionId === null ? "" : sections.find((section) => section.id === sectionId)!.title
    for (const lesson of lessons) groups[titleOf(lesson.section_id)]!.push(lesson.title)
    for (const [title, members] of Object.entries(groups)) {
      const section = sections.find((candidate) => candidate.title === title)
      const positions = lessons.filter((lesson) => lesson.section_id === (section?.id ?? null)).map((lesson) => lesson.position)
      assert.deepStrictEqual(positions, members.map((_, i) => i + 1), `positions of ${title || "the loose lessons"} are 1…n`)
    }
    // `list` gives the loose lessons first, then each section's in the sections' order.
    assert.deepStrictEqual(lessons.map((lesson) => lesson.title), [...groups[""]!, ...sections.flatMap((section) => groups[section.title]!)])
    return { sections: sections.map((section) => section.title), groups }
  })

/** A media file recorded under `key`, so lessons may use it as their video. */
const media = (key: string) =>
  Effect.gen(function*() {
    yield* (yield* MediaRepo).upsert({ key, name: "video.mp4", size_bytes: 10, content_type: "video/mp4" })
    return key
  })

const uniqueKey = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 10)}.mp4`

export interface LessonRepoSuiteOptions {
  /**
   * Whether the store references media files from lessons (PostgreSQL does): a lesson's
   * `video_key` must name a media file, and a file a lesson uses is not deleted.
   */
  readonly referencesMedia: boolean
}

/**
 * Registers the `LessonRepo` conformance tests for `repoLayer` (with its `CourseRepo` and
 * `MediaRepo`) under `name`.
 */
export const lessonRepoSuite = <E>(
  name: string,
  repoLayer: Layer.Layer<LessonRepo | CourseRepo | MediaRepo, E>,
  options: LessonRepoSuiteOptions
): void => {
  describe(`LessonRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("insert appends by default, stores every field, and reads back the same", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const first = yield* repo.insert(courseId, lesson("one", { is_preview: true, video_key: yield* media("media/a.mp4") }))
          const second = yield* repo.insert(courseId, lesson("two"))
          assert.strictEqual(first.course_id, courseId)
          assert.strictEqual(first.title, "one")
          assert.strictEqual(first.content_html, "<p>one body</p>")
          assert.strictEqual(first.video_key, "media/a.mp4")
          assert.isTrue(first.is_preview)
          assert.deepStrictEqual([first.position, second.position], [1, 2])
          assert.isNull(second.video_key)
          assert.isFalse(second.is_preview)
          assert.deepStrictEqual(yield* repo.findById(courseId, first.id), first)
          assert.deepStrictEqual(yield* repo.list(courseId), [first, second])
        }))

      it.effect("insert at a position shifts the rest; past the end means the end", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          yield* repo.insert(courseId, lesson("b"))
          yield* repo.insert(courseId, lesson("a", { position: 1 }))
          yield* repo.insert(courseId, lesson("d", { position: 99 }))
          yield* repo.insert(courseId, lesson("c", { position: 3 }))
          assert.deepStrictEqual(yield* order(courseId), ["a", "b", "c", "d"])
        }))

      it.effect("update changes fields and moves: down, up, past the end; others shift", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const ids: Array<LessonId> = []
          for (const title of ["a", "b", "c", "d", "e"]) ids.push((yield* repo.insert(courseId, lesson(title))).id)
          const changed = yield* repo.update(courseId, ids[0]!, {
            title: "A",
            is_preview: true,
            video_key: yield* media("media/v.mp4"),
            content_html: "<p>new</p>"
          })
          assert.deepStrictEqual([changed.title, changed.is_preview, changed.video_key, changed.content_html, changed.position], [
            "A",
            true,
            "media/v.mp4",
            "<p>new</p>",
            1
          ])
          assert.isNull((yield* repo.update(courseId, ids[0]!, { video_key: null })).video_key)
          yield* repo.update(courseId, ids[0]!, { position: 4 })
          assert.deepStrictEqual(yield* order(courseId), ["b", "c", "d", "A", "e"])
          yield* repo.update(courseId, ids[4]!, { position: 1 })
          assert.deepStrictEqual(yield* order(courseId), ["e", "b", "c", "d", "A"])
          yield* repo.update(courseId, ids[1]!, { position: 1000 })
          assert.deepStrictEqual(yield* order(courseId), ["e", "c", "d", "A", "b"])
          const unchanged = yield* repo.update(courseId, ids[2]!, {})
          assert.strictEqual(unchanged.position, 2)
        }))

      it.effect("versions: 1 when inserted, one more on each change, a move counting for every lesson and section it shifts; nothing changed, nothing counted", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const ids: Array<LessonId> = []
          for (const title of ["a", "b", "c"]) ids.push((yield* repo.insert(courseId, lesson(title))).id)
          const versions = Effect.map(repo.list(courseId), (lessons) => Object.fromEntries(lessons.map((one) => [one.title, one.version])))
          // An insert at the front shifts the others: each of them changed.
          yield* repo.insert(courseId, lesson("first", { position: 1 }))
          assert.deepStrictEqual(yield* versions, { first: 1, a: 2, b: 2, c: 2 })
          assert.strictEqual((yield* repo.update(courseId, ids[0]!, { title: "A" })).version, 3)
          // A move: the moved lesson and each lesson it shifts, and no other.
          yield* repo.update(courseId, ids[2]!, { position: 2 })
          assert.deepStrictEqual(yield* versions, { first: 1, c: 3, A: 4, b: 3 })
          // An update that changes nothing keeps the version.
          assert.strictEqual((yield* repo.update(courseId, ids[1]!, {})).version, 3)
          assert.strictEqual((yield* repo.update(courseId, ids[1]!, { title: "b" })).version, 3)
          // Deleting closes the gap: the lessons after it change.
          yield* repo.delete(courseId, ids[2]!)
          assert.deepStrictEqual(yield* versions, { first: 1, A: 5, b: 4 })
          // Sections count the same way, and a section's lessons detached on its deletion count.
          const one = yield* repo.insertSection(courseId, { title: "One" })
          const two = yield* repo.insertSection(courseId, { title: "Two" })
          assert.deepStrictEqual([one.version, two.version], [1, 1])
          assert.strictEqual((yield* repo.updateSection(courseId, two.id, { position: 1 })).version, 2)
          assert.strictEqual((yield* repo.listSections(courseId)).find((section) => section.id === one.id)!.version, 2)
          assert.strictEqual((yield* repo.updateSection(courseId, two.id, {})).version, 2)
          const placed = yield* repo.update(courseId, ids[1]!, { section_id: one.id })
          assert.strictEqual(placed.version, 5)
          yield* repo.deleteSection(courseId, one.id, true)
          assert.strictEqual((yield* repo.findById(courseId, ids[1]!)).version, 6)
        }))

      it.effect("delete closes the gap; unknown or another course's lessons are LessonNotFound", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const other = yield* newCourse
          const ids: Array<LessonId> = []
          for (const title of ["a", "b", "c"]) ids.push((yield* repo.insert(courseId, lesson(title))).id)
          yield* repo.delete(courseId, ids[1]!)
          assert.deepStrictEqual(yield* order(courseId), ["a", "c"])
          const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
            repo.delete(courseId, ids[1]!),
            repo.findById(courseId, ids[1]!),
            repo.findById(other, ids[0]!),
            repo.update(other, ids[0]!, { title: "x" }),
            repo.delete(other, ids[0]!)
          ]
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt)
            assert.strictEqual(error._tag, "LessonNotFound")
          }
          assert.deepStrictEqual(yield* order(courseId), ["a", "c"])
        }))

      it.effect("an unknown course: insert is CourseNotFound, list is empty", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courses = yield* CourseRepo
          const courseId = yield* newCourse
          yield* courses.delete(courseId)
          const error = yield* Effect.flip(repo.insert(courseId, lesson("x")))
          assert.strictEqual(error._tag, "CourseNotFound")
          assert.deepStrictEqual(yield* repo.list(courseId), [])
        }))

      it.effect("deleting the course deletes its lessons", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const kept = yield* newCourse
          const gone = yield* repo.insert(courseId, lesson("gone"))
          yield* repo.insert(kept, lesson("kept"))
          yield* (yield* CourseRepo).delete(courseId)
          assert.deepStrictEqual(yield* repo.list(courseId), [])
          assert.deepStrictEqual(yield* repo.listForViewer(courseId, boughtLongAgo), [])
          assert.strictEqual((yield* Effect.flip(repo.findById(courseId, gone.id)))._tag, "LessonNotFound")
          assert.deepStrictEqual(yield* order(kept), ["kept"])
        }))

      it.effect("listForViewer: without access, bodies of non-preview lessons are null; with it, all are there", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          yield* repo.insert(courseId, lesson("free", { is_preview: true, video_key: yield* media("media/free.mp4") }))
          yield* repo.insert(courseId, lesson("paid", { video_key: yield* media("private/media/paid.mp4") }))
          const locked = yield* repo.listForViewer(courseId, null)
          assert.deepStrictEqual(locked.map((row) => [row.title, row.position, row.is_preview, row.content_html, row.video_key]), [
            ["free", 1, true, "<p>free body</p>", "media/free.mp4"],
            ["paid", 2, false, null, null]
          ])
          const open = yield* repo.listForViewer(courseId, boughtLongAgo)
          assert.deepStrictEqual(open.map((row) => [row.title, row.content_html, row.video_key]), [
            ["free", "<p>free body</p>", "media/free.mp4"],
            ["paid", "<p>paid body</p>", "private/media/paid.mp4"]
          ])
          assert.deepStrictEqual(open.map((row) => row.id), (yield* repo.list(courseId)).map((row) => row.id))
        }))

      it.effect("drip: a buyer's lesson opens available_after_days after the purchase; until then it is upcoming and its body is not read", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          yield* repo.insert(courseId, lesson("at once"))
          yield* repo.insert(courseId, lesson("day 1", { available_after_days: 1 }))
          yield* repo.insert(courseId, lesson("day 3", { available_after_days: 3, video_key: yield* media("private/media/drip.mp4") }))
          yield* repo.insert(courseId, lesson("preview day 9", { available_after_days: 9, is_preview: true }))
          assert.strictEqual((yield* repo.list(courseId))[2]!.available_after_days, 3)
          // Bought two days ago, by the store's clock.
          const boughtAt = DateTime.subtract(yield* storeNow(courseId), { days: 2 })
          const rows = yield* repo.listForViewer(courseId, boughtAt)
          assert.deepStrictEqual(rows.map((row) => [row.title, row.content_html, row.video_key, row.available_at]), [
            ["at once", "<p>at once body</p>", null, null],
            ["day 1", "<p>day 1 body</p>", null, null],
            ["day 3", null, null, DateTime.add(boughtAt, { days: 3 })],
            ["preview day 9", "<p>preview day 9 body</p>", null, null]
          ])
          // Without the purchase there is no drip to show: locked, no date.
          const locked = yield* repo.listForViewer(courseId, null)
          assert.deepStrictEqual(locked.map((row) => [row.title, row.content_html, row.available_at]), [
            ["at once", null, null],
            ["day 1", null, null],
            ["day 3", null, null],
            ["preview day 9", "<p>preview day 9 body</p>", null]
          ])
        }))

      it.effect("listForViewer leaves out draft and scheduled lessons, with or without access; list shows all", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const now = yield* storeNow(courseId)
          const day = { days: 1 }
          yield* repo.insert(courseId, lesson("draft preview", { status: "draft", is_preview: true }))
          const scheduled = yield* repo.insert(courseId, lesson("scheduled", { publish_at: DateTime.add(now, day), is_preview: true }))
          yield* repo.insert(courseId, lesson("released", { publish_at: DateTime.subtract(now, day), is_preview: true }))
          yield* repo.insert(courseId, lesson("draft dated", { status: "draft", publish_at: DateTime.subtract(now, day) }))
          yield* repo.insert(courseId, lesson("paid"))
          assert.deepStrictEqual(yield* order(courseId), ["draft preview", "scheduled", "released", "draft dated", "paid"])
          assert.strictEqual(DateTime.toEpochMillis(scheduled.publish_at!), DateTime.toEpochMillis(DateTime.add(now, day)))
          for (const unlocked of [false, true]) {
            const shown = yield* repo.listForViewer(courseId, unlocked ? boughtLongAgo : null)
            assert.deepStrictEqual(shown.map((row) => [row.title, row.position]), [["released", 3], ["paid", 5]])
          }
          const made = yield* repo.update(courseId, scheduled.id, { publish_at: null })
          assert.isNull(made.publish_at)
          assert.deepStrictEqual((yield* repo.listForViewer(courseId, null)).map((row) => row.title), ["scheduled", "released", "paid"])
          assert.strictEqual((yield* repo.update(courseId, scheduled.id, { status: "draft" })).status, "draft")
          assert.deepStrictEqual((yield* repo.listForViewer(courseId, null)).map((row) => row.title), ["released", "paid"])
        }))

      it.effect("a scheduled lesson is listed for viewers once its publish_at passes", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const at = DateTime.add(yield* storeNow(courseId), { milliseconds: 1500 })
          yield* repo.insert(courseId, lesson("soon", { publish_at: at }))
          assert.deepStrictEqual(yield* repo.listForViewer(courseId, boughtLongAgo), [])
          // The in-memory store reads the test clock; a database reads its own.
          yield* TestClock.adjust(Duration.millis(1800))
          yield* Effect.sleep(Duration.millis(1800)).pipe(TestClock.withLive)
          assert.deepStrictEqual((yield* repo.listForViewer(courseId, boughtLongAgo)).map((row) => row.title), ["soon"])
        }), 20_000)

      it.effect("a lesson that is not a preview never gets a public video; nothing changes when refused", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const publicVideo = yield* media(uniqueKey("media/"))
          const privateVideo = yield* media(uniqueKey("private/media/"))
          const refused = yield* Effect.flip(repo.insert(courseId, lesson("paid", { video_key: publicVideo })))
          assert.deepStrictEqual([refused._tag, "video_key" in refused ? refused.video_key : undefined], ["PublicVideoOnPaidLesson", publicVideo])
          assert.deepStrictEqual(yield* repo.list(courseId), [])
          const preview = yield* repo.insert(courseId, lesson("preview", { is_preview: true, video_key: publicVideo }))
          const paid = yield* repo.insert(courseId, lesson("paid", { video_key: privateVideo }))
          for (
            const [id, changes] of [
              [preview.id, { is_preview: false }],
              [paid.id, { video_key: publicVideo, title: "renamed", position: 1 }]
            ] as const
          ) {
            const error = yield* Effect.flip(repo.update(courseId, id, changes))
            assert.strictEqual(error._tag, "PublicVideoOnPaidLesson")
          }
          assert.deepStrictEqual(yield* repo.list(courseId), [preview, paid])
          // Both at once is fine: the paid lesson's video is private.
          const swapped = yield* repo.update(courseId, preview.id, { is_preview: false, video_key: privateVideo })
          assert.deepStrictEqual([swapped.is_preview, swapped.video_key], [false, privateVideo])
        }))

      it.effect("concurrent updates cannot together give a paid lesson a public video", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const publicVideo = yield* media(uniqueKey("media/"))
          const privateVideo = yield* media(uniqueKey("private/media/"))
          for (let round = 0; round < 10; round++) {
            const target = yield* repo.insert(courseId, lesson(`r${round}`, { is_preview: true, video_key: privateVideo }))
            // Each is allowed alone; together they would make paid content public.
            const [video, unpreview] = yield* Effect.all([
              Effect.exit(repo.update(courseId, target.id, { video_key: publicVideo })),
              Effect.exit(repo.update(courseId, target.id, { is_preview: false }))
            ], { concurrency: "unbounded" })
            assert.strictEqual([video, unpreview].filter((exit) => exit._tag === "Success").length, 1)
            const stored = yield* repo.findById(courseId, target.id)
            assert.isFalse(!stored.is_preview && stored.video_key === publicVideo, "a paid lesson with a public video")
          }
        }))

      it.effect("usingVideos names, in one read, the lessons whose video is one of the keys, with the key, by course and id", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const first = yield* newCourse
          const second = yield* newCourse
          const shared = yield* media(uniqueKey("private/media/"))
          const own = yield* media(uniqueKey("media/"))
          const unused = yield* media(uniqueKey("media/"))
          const other = yield* media(uniqueKey("media/"))
          const a = yield* repo.insert(second, lesson("a", { video_key: shared }))
          const b = yield* repo.insert(first, lesson("b", { is_preview: true, video_key: own }))
          const c = yield* repo.insert(first, lesson("c", { video_key: shared }))
          yield* repo.insert(first, lesson("d", { is_preview: true, video_key: other }))
          yield* repo.insert(first, lesson("e"))
          assert.deepStrictEqual(yield* repo.usingVideos([unused, shared, own]), [
            { video_key: own, course_id: first, lesson_id: b.id },
            { video_key: shared, course_id: first, lesson_id: c.id },
            { video_key: shared, course_id: second, lesson_id: a.id }
          ].sort((x, y) => x.course_id - y.course_id || x.lesson_id - y.lesson_id))
          assert.deepStrictEqual(yield* repo.usingVideos([]), [])
          assert.deepStrictEqual(yield* repo.usingVideos([unused]), [])
          yield* (yield* CourseRepo).delete(second)
          assert.deepStrictEqual(yield* repo.usingVideos([shared, own]), [
            { video_key: own, course_id: first, lesson_id: b.id },
            { video_key: shared, course_id: first, lesson_id: c.id }
          ].sort((x, y) => x.lesson_id - y.lesson_id))
        }))

      if (options.referencesMedia) {
        it.effect("a video_key naming no media file is VideoNotFound; a file a lesson plays is not deleted", () =>
          Effect.gen(function*() {
            const repo = yield* LessonRepo
            const files = yield* MediaRepo
            const courseId = yield* newCourse
            const missing = uniqueKey("private/media/")
            const inserted = yield* Effect.flip(repo.insert(courseId, lesson("x", { video_key: missing })))
            assert.deepStrictEqual([inserted._tag, "video_key" in inserted ? inserted.video_key : undefined], ["VideoNotFound", missing])
            const used = yield* repo.insert(courseId, lesson("y", { video_key: yield* media(uniqueKey("private/media/")) }))
            const updated = yield* Effect.flip(repo.update(courseId, used.id, { video_key: missing, title: "z" }))
            assert.strictEqual(updated._tag, "VideoNotFound")
            assert.deepStrictEqual(yield* repo.list(courseId), [used])
            assert.strictEqual(yield* files.delete(used.video_key!), "in-use")
            assert.isTrue(Option.isSome(yield* files.findByKey(used.video_key!)))
            yield* repo.update(courseId, used.id, { video_key: null })
            assert.strictEqual(yield* files.delete(used.video_key!), "deleted")
          }))
      }

      it.effect("sections: insert at the end or a position, rename and move, delete closing the gap", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const basics = yield* repo.insertSection(courseId, { title: "Basics" })
          assert.strictEqual(basics.position, 1)
          assert.strictEqual(basics.course_id, courseId)
          const advanced = yield* repo.insertSection(courseId, { title: "Advanced", position: 99 })
          yield* repo.insertSection(courseId, { title: "Intro", position: 1 })
          assert.deepStrictEqual((yield* outline(courseId)).sections, ["Intro", "Basics", "Advanced"])
          const moved = yield* repo.updateSection(courseId, advanced.id, { position: 1, title: "Deep dive" })
          assert.strictEqual(moved.position, 1)
          assert.strictEqual(moved.title, "Deep dive")
          assert.deepStrictEqual((yield* outline(courseId)).sections, ["Deep dive", "Intro", "Basics"])
          yield* repo.deleteSection(courseId, moved.id, false)
          assert.deepStrictEqual((yield* outline(courseId)).sections, ["Intro", "Basics"])
          const other = yield* newCourse
          assert.strictEqual((yield* Effect.flip(repo.updateSection(other, basics.id, { title: "x" })))._tag, "SectionNotFound")
          assert.strictEqual((yield* Effect.flip(repo.deleteSection(other, basics.id, true)))._tag, "SectionNotFound")
          assert.strictEqual((yield* Effect.flip(repo.deleteSection(courseId, moved.id, true)))._tag, "SectionNotFound")
          assert.deepStrictEqual(yield* repo.listSections(other), [])
          const missing = 2_000_000_000 as CourseId
          assert.strictEqual((yield* Effect.flip(repo.insertSection(missing, { title: "x" })))._tag, "CourseNotFound")
        }))

      it.effect("lessons are placed per section; a move to another section and position is one step; a foreign section is refused", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const one = yield* repo.insertSection(courseId, { title: "One" })
          const two = yield* repo.insertSection(courseId, { title: "Two" })
          const a = yield* repo.insert(courseId, lesson("a", { section_id: one.id }))
          yield* repo.insert(courseId, lesson("b", { section_id: one.id }))
          yield* repo.insert(courseId, lesson("c", { section_id: two.id }))
          const loose = yield* repo.insert(courseId, lesson("loose"))
          yield* repo.insert(courseId, lesson("first", { section_id: one.id, position: 1 }))
          assert.strictEqual(a.position, 1)
          assert.strictEqual(loose.position, 1)
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], One: ["first", "a", "b"], Two: ["c"] })
          const movedA = yield* repo.update(courseId, a.id, { section_id: two.id, position: 1 })
          assert.strictEqual(movedA.section_id, two.id)
          assert.strictEqual(movedA.position, 1)
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], One: ["first", "b"], Two: ["a", "c"] })
          // Without a position: the end of the other group; null is the loose lessons.
          yield* repo.update(courseId, a.id, { section_id: null })
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose", "a"], One: ["first", "b"], Two: ["c"] })
          yield* repo.update(courseId, a.id, { section_id: one.id, position: 2, title: "a2" })
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], One: ["first", "a2", "b"], Two: ["c"] })
          yield* repo.updateSection(courseId, two.id, { position: 1 })
          assert.deepStrictEqual((yield* outline(courseId)).sections, ["Two", "One"])
          yield* repo.delete(courseId, a.id)
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], One: ["first", "b"], Two: ["c"] })
          const other = yield* newCourse
          const foreign = yield* repo.insertSection(other, { title: "Foreign" })
          assert.strictEqual((yield* Effect.flip(repo.insert(courseId, lesson("x", { section_id: foreign.id }))))._tag, "UnknownSection")
          assert.strictEqual((yield* Effect.flip(repo.update(courseId, loose.id, { section_id: foreign.id, title: "changed" })))._tag, "UnknownSection")
          assert.strictEqual((yield* repo.findById(courseId, loose.id)).title, "loose", "a refused move changes nothing")
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], One: ["first", "b"], Two: ["c"] })
          // The public course's rows carry the section, in the outline's order.
          assert.deepStrictEqual(
            (yield* repo.listForViewer(courseId, boughtLongAgo)).map((row) => [row.title, row.section_id, row.section_title, row.section_position]),
            [
              ["loose", null, null, null],
              ["c", two.id, "Two", 1],
              ["first", one.id, "One", 2],
              ["b", one.id, "One", 2]
            ]
          )
        }))

      it.effect("deleting a section with lessons is SectionNotEmpty unless they are detached, appended to the loose lessons", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const section = yield* repo.insertSection(courseId, { title: "Week 1" })
          const later = yield* repo.insertSection(courseId, { title: "Week 2" })
          yield* repo.insert(courseId, lesson("loose"))
          yield* repo.insert(courseId, lesson("x", { section_id: section.id }))
          yield* repo.insert(courseId, lesson("y", { section_id: section.id }))
          const refused = yield* Effect.flip(repo.deleteSection(courseId, section.id, false))
          assert.strictEqual(refused._tag, "SectionNotEmpty")
          assert.strictEqual((refused as SectionNotEmpty).lessons, 2)
          assert.deepStrictEqual((yield* outline(courseId)).groups, { "": ["loose"], "Week 1": ["x", "y"], "Week 2": [] })
          yield* repo.deleteSection(courseId, section.id, true)
          assert.deepStrictEqual(yield* outline(courseId), { sections: ["Week 2"], groups: { "": ["loose", "x", "y"], "Week 2": [] } })
          assert.strictEqual((yield* repo.listSections(courseId))[0]!.id, later.id)
        }))

      it.effect("concurrent moves across sections keep every group dense and unique", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const sections = [null, (yield* repo.insertSection(courseId, { title: "S1" })).id, (yield* repo.insertSection(courseId, { title: "S2" })).id]
          const ids: Array<LessonId> = []
          for (let i = 0; i < 12; i++) ids.push((yield* repo.insert(courseId, lesson(`l${i}`, { section_id: sections[i % 3]! }))).id)
          const moves = yield* Effect.forEach(Array.from({ length: 40 }), () =>
            Effect.gen(function*() {
              return {
                id: ids[yield* Random.nextIntBetween(0, 11)]!,
                section_id: sections[yield* Random.nextIntBetween(0, 2)]!,
                position: yield* Random.nextIntBetween(1, 14)
              }
            }))
          yield* Effect.forEach(moves, (move) => repo.update(courseId, move.id, { section_id: move.section_id, position: move.position }), {
            concurrency: "unbounded",
            discard: true
          })
          const { groups } = yield* outline(courseId)
          const all = Object.values(groups).flat()
          assert.strictEqual(all.length, 12)
          assert.strictEqual(new Set(all).size, 12)
        }))

      it.effect("concurrent inserts, moves and deletes on one course keep positions 1…n and unique", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const courseId = yield* newCourse
          const inserted = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => repo.insert(courseId, lesson(`l${i}`, { position: i % 3 === 0 ? 1 : undefined })),
            { concurrency: "unbounded" }
          )
          assert.strictEqual((yield* order(courseId)).length, 20)
          const ids = inserted.map((row) => row.id)
          const moves = yield* Effect.forEach(Array.from({ length: 40 }), () =>
            Effect.gen(function*() {
              return { id: ids[yield* Random.nextIntBetween(0, 19)]!, position: yield* Random.nextIntBetween(1, 22) }
            }))
          yield* Effect.all([
            Effect.forEach(
              moves,
              // A move of a lesson deleted meanwhile is LessonNotFound; nothing else may fail.
              (move) => repo.update(courseId, move.id, { position: move.position }).pipe(Effect.catchTag("LessonNotFound", () => Effect.void)),
              { concurrency: "unbounded", discard: true }
            ),
            Effect.forEach(ids.slice(15), (id) => repo.delete(courseId, id), { concurrency: "unbounded", discard: true })
          ], { concurrency: "unbounded" })
          const titles = yield* order(courseId)
          assert.strictEqual(titles.length, 15)
          assert.strictEqual(new Set(titles).size, 15)
        }))
    })
  })
}
