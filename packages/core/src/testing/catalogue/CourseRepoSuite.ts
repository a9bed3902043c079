/**
 * The conformance suite every `CourseRepo` adapter runs. It assumes nothing about rows
 * already stored: each test creates its own courses under unique titles and reads
 * pages from cursors it owns, so adapters can share one database across tests.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { type CourseId, CourseListRow } from "../../catalogue/Course.ts"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { adminAudience, type CatalogueAudience, publicAudience, publishedNow } from "../../catalogue/Publishing.ts"
import * as Slug from "../../catalogue/Slug.ts"
import * as RecordVariants from "../../shared/RecordVariants.ts"

const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`

/**
 * The store's clock, which decides visibility: the creation instant of a course inserted
 * now (every adapter sets `created_at` from the clock it reads visibility by). A write.
 */
export const storeNow = Effect.gen(function*() {
  const repo = yield* CourseRepo
  const title = unique("Clock")
  const probe = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "" })
  yield* repo.delete(probe.id)
  return probe.created_at
})

/**
 * Registers the `CourseRepo` conformance tests for `repoLayer` under `name`.
 * The layer is built once for the whole suite.
 */
export const courseRepoSuite = <E>(name: string, repoLayer: Layer.Layer<CourseRepo, E>): void => {
  describe(`CourseRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("insert stores the course and derives the slug from the base", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Intro to Rust")
          const base = Slug.fromTitle(title)
          const created = yield* repo.insert({ ...publishedNow, title, slugBase: base, content_html: "<p>hi</p>" })
          assert.strictEqual(created.title, title)
          assert.strictEqual(created.slug, base)
          assert.strictEqual(created.content_html, "<p>hi</p>")
          assert.isNull(created.thumbnail_key)
          assert.isAbove(created.id, 0)
          const found = yield* repo.findById(created.id)
          assert.deepStrictEqual(found, created)
          assert.deepStrictEqual(yield* repo.findBySlug(created.slug), created)
          const missing = yield* Effect.flip(repo.findBySlug(`${created.slug}-missing`))
          assert.strictEqual(missing._tag, "CourseSlugNotFound")
        }))

      it.effect("a taken slug gets -2, -3 and so on", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Same title")
          const base = Slug.fromTitle(title)
          const slugs: Array<string> = []
          for (let i = 0; i < 3; i++) {
            slugs.push((yield* repo.insert({ ...publishedNow, title, slugBase: base, content_html: "" })).slug)
          }
          assert.deepStrictEqual(slugs, [base, `${base}-2`, `${base}-3`])
        }))

      it.effect("a suffixed slug stays within the maximum length", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const base = Slug.fromTitle(`${unique("x")} ${"word ".repeat(30)}`)
          assert.isAtMost(base.length, Slug.maxLength)
          yield* repo.insert({ ...publishedNow, title: "long", slugBase: base, content_html: "" })
          const second = yield* repo.insert({ ...publishedNow, title: "long", slugBase: base, content_html: "" })
          assert.strictEqual(second.slug, Slug.candidate(base, 2))
          assert.isAtMost(second.slug.length, Slug.maxLength)
          assert.match(second.slug, Slug.pattern)
        }))

      it.effect("an empty base falls back to course-<id>", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const created = yield* repo.insert({ ...publishedNow, title: "!!!", slugBase: "", content_html: "" })
          assert.strictEqual(created.slug, Slug.fallback(created.id))
        }))

      it.effect("20 concurrent inserts of one title get 20 distinct slugs", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Concurrent")
          const base = Slug.fromTitle(title)
          const created = yield* Effect.forEach(
            Array.from({ length: 20 }, () => ({ ...publishedNow, title, slugBase: base, content_html: "" })),
            (course) => repo.insert(course),
            { concurrency: "unbounded" }
          )
          const slugs = new Set(created.map((course) => course.slug))
          assert.strictEqual(slugs.size, 20)
          assert.sameMembers([...slugs], [base, ...Array.from({ length: 19 }, (_, index) => Slug.candidate(base, index + 2))])
        }))

      it.effect("concurrent inserts whose bases collide (intro / intro-2) all get distinct slugs", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const base = Slug.fromTitle(unique("Intro"))
          const created = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => ({ ...publishedNow, title: "t", slugBase: i % 2 === 0 ? base : `${base}-2`, content_html: "" })),
            (course) => repo.insert(course),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(new Set(created.map((course) => course.slug)).size, 20)
          for (const course of created) assert.match(course.slug, Slug.pattern)
        }))

      it.effect("list pages ascend by id from an inclusive cursor", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const ids: Array<CourseId> = []
          for (let i = 0; i < 5; i++) {
            ids.push((yield* repo.insert({ ...publishedNow, title: unique("Page"), slugBase: unique("page").replace(" ", "-"), content_html: "<p>body</p>" })).id)
          }
          const { rows: first } = yield* repo.list({ cursor: ids[0], limit: 3, audience: adminAudience() })
          assert.deepStrictEqual(first.map((row) => row.id), ids.slice(0, 3))
          const { rows: second } = yield* repo.list({ cursor: ids[3], limit: 3, audience: adminAudience() })
          assert.deepStrictEqual(second.slice(0, 2).map((row) => row.id), ids.slice(3, 5))
          // Exactly the list row's fields, as the record declares them: no body read for a list.
          assert.deepStrictEqual(Object.keys(first[0]!).sort(), [...RecordVariants.columnsOf(CourseListRow)].sort())
          assert.notInclude(Object.keys(first[0]!), "content_html")
          const { rows: all } = yield* repo.list({ cursor: undefined, limit: 1, audience: adminAudience() })
          assert.strictEqual(all.length, 1)
          assert.isAtMost(all[0]!.id, ids[0]!)
        }))

      it.effect("a cursor past the data gives an empty page", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const listed = yield* repo.list({ cursor: 2_000_000_000 as CourseId, limit: 10, audience: adminAudience() })
          assert.deepStrictEqual(listed, { rows: [], version: yield* repo.version })
        }))

      it.effect("update changes title and body, keeps the slug, moves updated_at", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Before")
          const created = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "<p>a</p>" })
          // Adapters whose clock is Effect's (the test clock here) need time to pass;
          // database clocks move by themselves.
          yield* TestClock.adjust(Duration.seconds(1))
          yield* Effect.sleep(Duration.millis(5)).pipe(TestClock.withLive)
          const renamed = yield* repo.update(created.id, { title: "After" })
          assert.strictEqual(renamed.title, "After")
          assert.strictEqual(renamed.slug, created.slug)
          assert.strictEqual(renamed.content_html, "<p>a</p>")
          const rewritten = yield* repo.update(created.id, { content_html: "<p>b</p>" })
          assert.strictEqual(rewritten.title, "After")
          assert.strictEqual(rewritten.content_html, "<p>b</p>")
          assert.isAbove(rewritten.updated_at.epochMilliseconds, created.updated_at.epochMilliseconds)
          assert.strictEqual(rewritten.created_at.epochMilliseconds, created.created_at.epochMilliseconds)
          assert.deepStrictEqual(yield* repo.findById(created.id), rewritten)
        }))

      it.effect("update sets and clears the thumbnail key; other changes keep it", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Thumbnail")
          const created = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "" })
          const key = `courses/${created.id}/00000000-0000-4000-8000-000000000000.png`
          assert.strictEqual((yield* repo.update(created.id, { thumbnail_key: key })).thumbnail_key, key)
          assert.strictEqual((yield* repo.update(created.id, { title: "Renamed" })).thumbnail_key, key)
          const { rows: listed } = yield* repo.list({ cursor: created.id, limit: 1, audience: adminAudience() })
          assert.strictEqual(listed[0]!.thumbnail_key, key)
          assert.isNull((yield* repo.update(created.id, { thumbnail_key: null })).thumbnail_key)
        }))

      it.effect("thumbnailsAmong names the courses whose thumbnail is one of the keys, by ascending id, in one read", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const insert = (label: string) =>
            Effect.map(repo.insert({ ...publishedNow, title: unique(label), slugBase: Slug.fromTitle(unique(label)), content_html: "" }), (course) => course.id)
          const first = yield* insert("Shows a")
          const second = yield* insert("Shows b")
          const other = yield* insert("Shows c")
          const [a, b, c, unused] = ["a", "b", "c", "unused"].map((name) => `courses/${first}/${unique(name).replace(" ", "-")}.png`)
          yield* repo.update(second, { thumbnail_key: b! })
          yield* repo.update(first, { thumbnail_key: a! })
          yield* repo.update(other, { thumbnail_key: c! })
          assert.deepStrictEqual(yield* repo.thumbnailsAmong([unused!, b!, a!]), [
            { course_id: first, thumbnail_key: a! },
            { course_id: second, thumbnail_key: b! }
          ])
          assert.deepStrictEqual(yield* repo.thumbnailsAmong([]), [])
          // A thumbnail replaced, and a course deleted, show nothing any more.
          yield* repo.update(first, { thumbnail_key: null })
          yield* repo.delete(second)
          assert.deepStrictEqual(yield* repo.thumbnailsAmong([a!, b!, c!]), [{ course_id: other, thumbnail_key: c! }])
        }))

      it.effect("versions: 1 when inserted, one more on each change, the same after an update that changes nothing; listed to admins", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = `Versioned ${Math.random().toString(36).slice(2, 10)}`
          const created = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "<p>1</p>" })
          assert.strictEqual(created.version, 1)
          assert.strictEqual((yield* repo.update(created.id, { content_html: "<p>2</p>" })).version, 2)
          assert.strictEqual((yield* repo.update(created.id, { title: "Renamed", status: "draft" })).version, 3)
          assert.strictEqual((yield* repo.update(created.id, {})).version, 3)
          assert.strictEqual((yield* repo.update(created.id, { title: "Renamed" })).version, 3)
          assert.strictEqual((yield* repo.findById(created.id)).version, 3)
          const { rows } = yield* repo.list({ cursor: created.id, limit: 1, audience: adminAudience() })
          assert.strictEqual(rows[0]!.version, 3)
        }))

      it.effect("a description is stored and read back, changed and cleared; an insert without one reads null", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Described")
          const described = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "", description: "Bread & <b>butter</b>" })
          assert.strictEqual(described.description, "Bread & <b>butter</b>")
          assert.strictEqual((yield* repo.findBySlug(described.slug)).description, "Bread & <b>butter</b>")
          assert.strictEqual((yield* repo.update(described.id, { description: "Sourdough" })).description, "Sourdough")
          assert.strictEqual((yield* repo.update(described.id, { title: "Renamed" })).description, "Sourdough")
          assert.isNull((yield* repo.update(described.id, { description: null })).description)
          assert.isNull((yield* repo.findById(described.id)).description)
          const plain = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "" })
          assert.isNull(plain.description)
          assert.isNull((yield* repo.findById(plain.id)).description)
        }))

      it.effect("insert and update store only the fields their shapes name: an extra property (a slug) is ignored", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const title = unique("Extra")
          // Objects with extra properties pass TypeScript when they are not literals.
          const course = { ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "", slug: "chosen-by-the-caller", id: 1 }
          const created = yield* repo.insert(course)
          assert.strictEqual(created.slug, Slug.candidate(Slug.fromTitle(title), 1))
          const changes = { title: "Renamed", slug: "hijacked" }
          const updated = yield* repo.update(created.id, changes)
          assert.strictEqual(updated.title, "Renamed")
          assert.strictEqual(updated.slug, created.slug)
          assert.strictEqual((yield* repo.findById(created.id)).slug, created.slug)
        }))

      it.effect("version changes with every write and only with writes", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const v0 = yield* repo.version
          assert.strictEqual(yield* repo.version, v0)
          const created = yield* repo.insert({ ...publishedNow, title: "versioned", slugBase: unique("versioned").replace(" ", "-"), content_html: "" })
          const v1 = yield* repo.version
          assert.notStrictEqual(v1, v0)
          yield* repo.list({ cursor: created.id, limit: 5, audience: adminAudience() })
          yield* repo.findById(created.id)
          assert.strictEqual(yield* repo.version, v1)
          yield* repo.update(created.id, { title: "versioned again" })
          const v2 = yield* repo.version
          assert.notStrictEqual(v2, v1)
          yield* repo.delete(created.id)
          const v3 = yield* repo.version
          assert.notInclude([v0, v1, v2], v3)
          // A failed write is not a change.
          yield* Effect.flip(repo.update(created.id, { title: "gone" }))
          assert.strictEqual(yield* repo.version, v3)
        }))

      it.effect("list answers the version it read its rows at: the same as version with no write between, a new one after a write", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const created = yield* repo.insert({ ...publishedNow, title: "listed version", slugBase: unique("listed-version").replace(" ", "-"), content_html: "" })
          const before = yield* repo.version
          for (const audience of [publicAudience, adminAudience(), adminAudience("draft")]) {
            assert.strictEqual((yield* repo.list({ cursor: created.id, limit: 2, audience })).version, before)
          }
          yield* repo.update(created.id, { title: "listed version, renamed" })
          const after = yield* repo.list({ cursor: created.id, limit: 2, audience: publicAudience })
          assert.notStrictEqual(after.version, before)
          assert.strictEqual(after.version, yield* repo.version)
          assert.strictEqual(after.rows[0]!.title, "listed version, renamed")
        }))

      it.effect("the public sees published courses whose publish_at passed; admins see all, and filter by status", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          // The store's clock decides; these instants are a day away from it either way.
          const now = yield* storeNow
          const day = { days: 1 }
          const add = (status: "draft" | "published", publishAt: DateTime.Utc | null) => {
            const title = unique(`${status} ${publishAt === null ? "now" : DateTime.formatIso(publishAt)}`)
            return repo.insert({ status, publish_at: publishAt, title, slugBase: Slug.fromTitle(title), content_html: "" })
          }
          const draft = yield* add("draft", null)
          const draftDated = yield* add("draft", DateTime.subtract(now, day))
          const scheduled = yield* add("published", DateTime.add(now, day))
          const released = yield* add("published", DateTime.subtract(now, day))
          const published = yield* add("published", null)
          assert.strictEqual(draft.status, "draft")
          assert.isNull(draft.publish_at)
          assert.strictEqual(DateTime.toEpochMillis(scheduled.publish_at!), DateTime.toEpochMillis(DateTime.add(now, day)))
          const ids = (rows: ReadonlyArray<{ readonly id: CourseId }>) => rows.map((row) => row.id)
          const page = (audience: CatalogueAudience) => Effect.map(repo.list({ cursor: draft.id, limit: 50, audience }), ({ rows }) => ids(rows))
          const mine = [draft.id, draftDated.id, scheduled.id, released.id, published.id]
          const ofMine = (listed: ReadonlyArray<CourseId>) => listed.filter((id) => mine.includes(id))
          assert.deepStrictEqual(ofMine(yield* page(publicAudience)), [released.id, published.id])
          assert.deepStrictEqual(ofMine(yield* page(adminAudience())), mine)
          assert.deepStrictEqual(ofMine(yield* page(adminAudience("draft"))), [draft.id, draftDated.id])
          assert.deepStrictEqual(ofMine(yield* page(adminAudience("published"))), [released.id, published.id])
          assert.deepStrictEqual(ofMine(yield* page(adminAudience("scheduled"))), [scheduled.id])
          const listed = (yield* repo.list({ cursor: scheduled.id, limit: 1, audience: adminAudience() })).rows[0]!
          assert.strictEqual(listed.status, "published")
          assert.strictEqual(DateTime.toEpochMillis(listed.publish_at!), DateTime.toEpochMillis(scheduled.publish_at!))
          for (const hidden of [draft, draftDated, scheduled]) {
            assert.strictEqual((yield* Effect.flip(repo.findById(hidden.id, { visibleOnly: true })))._tag, "CourseNotFound")
            assert.strictEqual((yield* Effect.flip(repo.findBySlug(hidden.slug, { visibleOnly: true })))._tag, "CourseSlugNotFound")
            assert.deepStrictEqual(yield* repo.findById(hidden.id), hidden)
            assert.deepStrictEqual(yield* repo.findBySlug(hidden.slug), hidden)
          }
          for (const visible of [released, published]) {
            assert.deepStrictEqual(yield* repo.findById(visible.id, { visibleOnly: true }), visible)
            assert.deepStrictEqual(yield* repo.findBySlug(visible.slug, { visibleOnly: true }), visible)
          }
        }))

      it.effect("update publishes a draft, schedules and unschedules it; the slug stays unique across drafts", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const now = yield* storeNow
          const title = unique("Drafted")
          const draft = yield* repo.insert({ status: "draft", publish_at: null, title, slugBase: Slug.fromTitle(title), content_html: "" })
          const twin = yield* repo.insert({ ...publishedNow, title, slugBase: Slug.fromTitle(title), content_html: "" })
          assert.strictEqual(twin.slug, `${draft.slug}-2`)
          const later = DateTime.add(now, { days: 2 })
          const scheduled = yield* repo.update(draft.id, { status: "published", publish_at: later })
          assert.strictEqual(scheduled.status, "published")
          assert.strictEqual(DateTime.toEpochMillis(scheduled.publish_at!), DateTime.toEpochMillis(later))
          assert.strictEqual((yield* Effect.flip(repo.findById(draft.id, { visibleOnly: true })))._tag, "CourseNotFound")
          const unscheduled = yield* repo.update(draft.id, { publish_at: null })
          assert.isNull(unscheduled.publish_at)
          assert.deepStrictEqual(yield* repo.findById(draft.id, { visibleOnly: true }), unscheduled)
          assert.strictEqual((yield* repo.update(draft.id, { status: "draft" })).status, "draft")
          assert.strictEqual((yield* Effect.flip(repo.findById(draft.id, { visibleOnly: true })))._tag, "CourseNotFound")
        }))

      it.effect("a scheduled course becomes visible when its publish_at passes, and the version changes then", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const start = yield* storeNow
          const at = DateTime.add(start, { milliseconds: 1500 })
          const title = unique("Scheduled")
          const course = yield* repo.insert({ status: "published", publish_at: at, title, slugBase: Slug.fromTitle(title), content_html: "" })
          const before = yield* repo.version
          assert.strictEqual((yield* Effect.flip(repo.findById(course.id, { visibleOnly: true })))._tag, "CourseNotFound")
          const publicPage = repo.list({ cursor: course.id, limit: 1, audience: publicAudience })
          const hidden = yield* publicPage
          assert.notInclude(hidden.rows.map((row) => row.id), course.id)
          assert.strictEqual(hidden.version, before)
          // No write happens: only the passing of publish_at can change what is read.
          // The in-memory store reads the test clock; a database reads its own.
          yield* TestClock.adjust(Duration.millis(1800))
          yield* Effect.sleep(Duration.millis(1800)).pipe(TestClock.withLive)
          assert.deepStrictEqual(yield* repo.findById(course.id, { visibleOnly: true }), course)
          const shown = yield* publicPage
          assert.deepStrictEqual(shown.rows.map((row) => row.id), [course.id])
          assert.notStrictEqual(shown.version, before)
          assert.strictEqual(shown.version, yield* repo.version)
        }), 20_000)

      it.effect("delete removes the course; missing ids fail with CourseNotFound", () =>
        Effect.gen(function*() {
          const repo = yield* CourseRepo
          const created = yield* repo.insert({ ...publishedNow, title: "gone", slugBase: unique("gone").replace(" ", "-"), content_html: "" })
          yield* repo.delete(created.id)
          for (const failure of [
            yield* Effect.flip(repo.findById(created.id)),
            yield* Effect.flip(repo.update(created.id, { title: "x" })),
            yield* Effect.flip(repo.delete(created.id))
          ]) {
            assert.strictEqual(failure._tag, "CourseNotFound")
          }
        }))
    })
  })
}
