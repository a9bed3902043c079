/**
 * The conformance suite of versions, preconditions and revisions, which every store of
 * courses and lessons runs (`CourseRepo` and `LessonRepo` together: a lesson needs its
 * course). Build the repositories under test with {@link revisionSuitePolicy}
 * (`Layer.provide(Layer.succeed(RevisionPolicies, revisionSuitePolicy))`): the suite
 * counts on keeping 5 revisions and on 2-second autosave runs.
 *
 * @since 0.3.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Exit, type Layer } from "effect"
import { TestClock } from "effect/testing"
import type { CourseId, CourseRecord } from "../../catalogue/Course.ts"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"
import type { SectionId } from "../../catalogue/Section.ts"
import type { Edit, RevisionPolicy } from "../../editing/Edit.ts"
import type { RevisionSummary } from "../../editing/Revision.ts"
import type { LessonId } from "../../lessons/Lesson.ts"
import { LessonRepo } from "../../lessons/LessonRepo.ts"
import { newLesson } from "../lessons/LessonFixtures.ts"

/** The policy the repositories under test are built with. */
export const revisionSuitePolicy: RevisionPolicy = { keep: 5, autosaveWindow: Duration.seconds(2) }

const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`
const ada: Edit = { author: "ada" }
const adaAutosave: Edit = { author: "ada", autosave: true }

const newCourse = (edit: Edit = ada) =>
  Effect.gen(function*() {
    const title = unique("Revised")
    return yield* (yield* CourseRepo).insert({ ...publishedNow, title, slugBase: title.toLowerCase().replace(/ /g, "-"), content_html: "<p>v1</p>" }, edit)
  })

const courseRevisions = (id: CourseId) =>
  Effect.gen(function*() {
    return yield* (yield* CourseRepo).revisions(id, { cursor: undefined, limit: 50 })
  })
const lessonRevisions = (courseId: CourseId, id: LessonId) =>
  Effect.gen(function*() {
    return yield* (yield* LessonRepo).revisions(courseId, id, { cursor: undefined, limit: 50 })
  })
const shape = (revisions: ReadonlyArray<RevisionSummary>) =>
  revisions.map(({ version, author, autosave, changed, note }) => ({ version, author, autosave, changed, note }))

/** Registers the suite for `repoLayer` under `name`. */
export const revisionsSuite = <E>(name: string, repoLayer: Layer.Layer<CourseRepo | LessonRepo, E>): void => {
  describe(`Revisions conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("a new course is at version 1 with one revision of every field, by its author", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          assert.strictEqual(course.version, 1)
          const revisions = yield* courseRevisions(course.id)
          assert.deepStrictEqual(shape(revisions), [{
            version: 1,
            author: "ada",
            autosave: false,
            changed: ["title", "description", "content_html", "status", "publish_at", "thumbnail_key"],
            note: null
          }])
          const first = yield* repo.revision(course.id, revisions[0]!.revision_id)
          assert.deepStrictEqual(first.record, {
            title: course.title,
            description: null,
            content_html: "<p>v1</p>",
            status: "published",
            publish_at: null,
            thumbnail_key: null
          })
        }))

      it.effect("a write under a stale version fails with the course as stored and writes nothing; a current one or * goes through", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          const moved = yield* repo.update(course.id, { title: `${course.title} 2` }, { author: "bob", ifMatch: [1] })
          assert.strictEqual(moved.version, 2)
          const stale = yield* Effect.flip(repo.update(course.id, { title: "lost" }, { author: "ada", ifMatch: [1] }))
          assert.strictEqual(stale._tag, "StaleRecord")
          if (stale._tag !== "StaleRecord") return
          assert.deepStrictEqual(stale.current as CourseRecord, moved)
          assert.deepStrictEqual(yield* repo.findById(course.id), moved)
          assert.strictEqual((yield* courseRevisions(course.id)).length, 2)
          // A list naming the current version, and *, go through.
          assert.strictEqual((yield* repo.update(course.id, { description: "d" }, { author: "ada", ifMatch: [1, 2] })).version, 3)
          assert.strictEqual((yield* repo.update(course.id, { description: "e" }, { author: "ada", ifMatch: "any" })).version, 4)
          // No version matches an empty list (If-Match naming only tags of another service).
          assert.strictEqual((yield* Effect.flip(repo.update(course.id, { description: "f" }, { author: "ada", ifMatch: [] })))._tag, "StaleRecord")
          const staleDelete = yield* Effect.flip(repo.delete(course.id, { author: "ada", ifMatch: [3] }))
          assert.strictEqual(staleDelete._tag, "StaleRecord")
          assert.strictEqual((yield* repo.findById(course.id)).version, 4)
          yield* repo.delete(course.id, { author: "ada", ifMatch: [4] })
          assert.strictEqual((yield* Effect.flip(repo.findById(course.id)))._tag, "CourseNotFound")
        }))

      it.effect("each change of a revised field adds a revision naming the fields it changed; a write that changes nothing adds none", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          yield* repo.update(course.id, { title: `${course.title} B`, content_html: "<p>v2</p>" }, { author: "bob" })
          const same = yield* repo.update(course.id, { title: `${course.title} B` }, { author: "bob" })
          assert.strictEqual(same.version, 2)
          yield* repo.update(course.id, { status: "draft" }, { author: "cy" })
          assert.deepStrictEqual(shape(yield* courseRevisions(course.id)).slice(0, 2), [
            { version: 3, author: "cy", autosave: false, changed: ["status"], note: null },
            { version: 2, author: "bob", autosave: false, changed: ["title", "content_html"], note: null }
          ])
          const [newest] = yield* courseRevisions(course.id)
          assert.deepStrictEqual((yield* repo.revision(course.id, newest!.revision_id)).record.status, "draft")
        }))

      it.effect("a noted write (a restore) that changes nothing adds no revision; one that changes a field adds one with its note", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          const same = yield* repo.update(course.id, { title: course.title, content_html: "<p>v1</p>" }, { author: "bob", note: "Restored from revision 1." })
          assert.strictEqual(same.version, 1)
          assert.strictEqual((yield* courseRevisions(course.id)).length, 1)
          yield* repo.update(course.id, { content_html: "<p>v2</p>" }, ada)
          yield* repo.update(course.id, { content_html: "<p>v1</p>" }, { author: "bob", note: "Restored from revision 1." })
          assert.deepStrictEqual(shape(yield* courseRevisions(course.id)).slice(0, 1), [
            { version: 3, author: "bob", autosave: false, changed: ["content_html"], note: "Restored from revision 1." }
          ])
        }))

      it.effect("consecutive autosaves of one author keep one revision with the latest content; another author or an ordinary write starts anew", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          for (let n = 2; n <= 6; n++) yield* repo.update(course.id, { content_html: `<p>v${n}</p>` }, adaAutosave)
          let revisions = yield* courseRevisions(course.id)
          assert.deepStrictEqual(shape(revisions).slice(0, 1), [{ version: 6, author: "ada", autosave: true, changed: ["content_html"], note: null }])
          assert.strictEqual(revisions.length, 2)
          assert.strictEqual((yield* repo.revision(course.id, revisions[0]!.revision_id)).record.content_html, "<p>v6</p>")
          yield* repo.update(course.id, { content_html: "<p>bob</p>" }, { author: "bob", autosave: true })
          yield* repo.update(course.id, { content_html: "<p>ada again</p>" }, adaAutosave)
          yield* repo.update(course.id, { title: `${course.title} saved` }, ada)
          yield* repo.update(course.id, { content_html: "<p>after save</p>" }, adaAutosave)
          revisions = yield* courseRevisions(course.id)
          assert.deepStrictEqual(shape(revisions).map((revision) => [revision.version, revision.author, revision.autosave]), [
            [10, "ada", true],
            [9, "ada", false],
            [8, "ada", true],
            [7, "bob", true]
          ].concat([[6, "ada", true]]))
        }))

      it.effect("an autosave run ends once its window has passed since its first save", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          yield* repo.update(course.id, { content_html: "<p>a</p>" }, adaAutosave)
          yield* repo.update(course.id, { content_html: "<p>b</p>" }, adaAutosave)
          // Past the window by either clock: a database's (real time) and an in-memory store's (the test's).
          const past = Duration.sum(revisionSuitePolicy.autosaveWindow, Duration.millis(300))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, Duration.toMillis(past))))
          yield* TestClock.adjust(past)
          yield* repo.update(course.id, { content_html: "<p>c</p>" }, adaAutosave)
          const revisions = yield* courseRevisions(course.id)
          assert.deepStrictEqual(revisions.map((revision) => revision.version), [4, 3, 1])
          assert.deepStrictEqual(shape(revisions)[1]!.changed, ["content_html"])
        }))

      it.effect("only the newest revisions the policy keeps stay; pages go newest first from the cursor", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          for (let n = 2; n <= 8; n++) yield* repo.update(course.id, { title: `${course.title} ${n}` }, ada)
          const all = yield* courseRevisions(course.id)
          assert.deepStrictEqual(all.map((revision) => revision.version), [8, 7, 6, 5, 4])
          const page = yield* repo.revisions(course.id, { cursor: all[1]!.revision_id, limit: 2 })
          assert.deepStrictEqual(page.map((revision) => revision.version), [7, 6])
          const gone = yield* Effect.flip(repo.revision(course.id, (all[4]!.revision_id - 1) as never))
          assert.strictEqual(gone._tag, "RevisionNotFound")
        }))

      it.effect("deleting a course deletes its revisions: reading them is CourseNotFound", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          const [first] = yield* courseRevisions(course.id)
          yield* repo.delete(course.id)
          assert.strictEqual((yield* Effect.flip(courseRevisions(course.id)))._tag, "CourseNotFound")
          assert.strictEqual((yield* Effect.flip(repo.revision(course.id, first!.revision_id)))._tag, "CourseNotFound")
        }))

      it.effect("of 20 concurrent updates naming one version exactly one is written, whole; the others fail with StaleRecord", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const course = yield* newCourse()
          const exits = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => Effect.exit(repo.update(course.id, { title: `winner ${i}`, description: `by ${i}` }, { author: `w${i}`, ifMatch: [1] })),
            { concurrency: "unbounded" }
          )
          const won = exits.filter(Exit.isSuccess)
          assert.strictEqual(won.length, 1)
          for (const exit of exits) if (Exit.isFailure(exit)) assert.include(String(exit.cause), "StaleRecord")
          const stored = yield* repo.findById(course.id)
          const winner = stored.title.slice("winner ".length)
          assert.strictEqual(stored.description, `by ${winner}`)
          assert.strictEqual(stored.version, 2)
          assert.deepStrictEqual(shape(yield* courseRevisions(course.id)).map((revision) => revision.author), [`w${winner}`, "ada"])
        }))

      it.effect("lessons: a first revision, one per change of a revised field (a section move included), none for a move within the section", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const course = yield* newCourse()
          const section = yield* repo.insertSection(course.id, { title: "Week 1" })
          const first = yield* repo.insert(course.id, newLesson("one"), ada)
          const second = yield* repo.insert(course.id, newLesson("two"), ada)
          assert.strictEqual(first.version, 1)
          const moved = yield* repo.update(course.id, second.id, { position: 1 }, { author: "bob" })
          assert.strictEqual(moved.version, 2)
          // The sibling the move shifted counts a version too, but keeps one revision.
          assert.strictEqual((yield* repo.findById(course.id, first.id)).version, 2)
          assert.strictEqual((yield* lessonRevisions(course.id, first.id)).length, 1)
          const inSection = yield* repo.update(course.id, first.id, { section_id: section.id }, { author: "bob" })
          assert.strictEqual(inSection.version, 3)
          assert.deepStrictEqual(shape(yield* lessonRevisions(course.id, first.id)), [
            { version: 3, author: "bob", autosave: false, changed: ["section_id"], note: null },
            { version: 1, author: "ada", autosave: false, changed: ["title", "content_html", "is_preview", "video_key", "status", "publish_at", "section_id", "available_after_days"], note: null }
          ])
          const [newest] = yield* lessonRevisions(course.id, first.id)
          assert.strictEqual((yield* repo.revision(course.id, first.id, newest!.revision_id)).record.section_id, section.id)
        }))

      it.effect("lessons and sections: a stale version fails with the record as stored and writes nothing", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const course = yield* newCourse()
          const lesson = yield* repo.insert(course.id, newLesson("l"), ada)
          const section = yield* repo.insertSection(course.id, { title: "S" })
          yield* repo.update(course.id, lesson.id, { title: "l2" }, { author: "bob", ifMatch: [1] })
          const stale = yield* Effect.flip(repo.update(course.id, lesson.id, { title: "lost" }, { author: "ada", ifMatch: [1] }))
          assert.strictEqual(stale._tag, "StaleRecord")
          assert.strictEqual((yield* repo.findById(course.id, lesson.id)).title, "l2")
          assert.strictEqual((yield* Effect.flip(repo.delete(course.id, lesson.id, { author: "ada", ifMatch: [1] })))._tag, "StaleRecord")
          yield* repo.updateSection(course.id, section.id, { title: "S2" }, { author: "bob", ifMatch: [1] })
          assert.strictEqual((yield* Effect.flip(repo.updateSection(course.id, section.id, { title: "lost" }, { author: "ada", ifMatch: [1] })))._tag, "StaleRecord")
          assert.strictEqual((yield* Effect.flip(repo.deleteSection(course.id, section.id, false, { author: "ada", ifMatch: [1] })))._tag, "StaleRecord")
          const sections = yield* repo.listSections(course.id)
          assert.deepStrictEqual(sections.map((s) => [s.title, s.version]), [["S2", 2]])
          yield* repo.deleteSection(course.id, section.id, false, { author: "ada", ifMatch: [2] })
          yield* repo.delete(course.id, lesson.id, { author: "ada", ifMatch: "any" })
          assert.strictEqual((yield* Effect.flip(lessonRevisions(course.id, lesson.id)))._tag, "LessonNotFound")
        }))

      it.effect("deleting a section with its lessons detached stores a revision of each lesson's new section", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const course = yield* newCourse()
          const section = yield* repo.insertSection(course.id, { title: "Gone" })
          const lesson = yield* repo.insert(course.id, newLesson("in it", { section_id: section.id as SectionId }), ada)
          yield* repo.deleteSection(course.id, section.id, true, { author: "bob" })
          const [newest] = yield* lessonRevisions(course.id, lesson.id)
          assert.deepStrictEqual(shape([newest!]), [{ version: 2, author: "bob", autosave: false, changed: ["section_id"], note: null }])
        }))

      it.effect("of 20 concurrent lesson updates naming one version exactly one is written, whole", () =>
        Effect.gen(function*() {
          const repo = yield* LessonRepo
          const course = yield* newCourse()
          const lesson = yield* repo.insert(course.id, newLesson("raced"), ada)
          const exits = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => Effect.exit(repo.update(course.id, lesson.id, { title: `winner ${i}`, content_html: `<p>by ${i}</p>` }, { author: `w${i}`, ifMatch: [1] })),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
          for (const exit of exits) if (Exit.isFailure(exit)) assert.include(String(exit.cause), "StaleRecord")
          const stored = yield* repo.findById(course.id, lesson.id)
          assert.strictEqual(stored.content_html, `<p>by ${stored.title.slice("winner ".length)}</p>`)
          assert.strictEqual(stored.version, 2)
        }))
    })
  })
}
