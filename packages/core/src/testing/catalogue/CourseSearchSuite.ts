/**
 * The conformance suite of `CourseRepo.search`, for every adapter: the same matches and,
 * in the cases checked here, the same order. Adapters share one database across tests,
 * so each test marks its courses with a word of its own (`tag`) and puts it in every
 * query.
 *
 * @since 0.2.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer } from "effect"
import type { CourseId } from "../../catalogue/Course.ts"
import { CourseRepo, type NewCourse } from "../../catalogue/CourseRepo.ts"
import {
  CourseSearchRow,
  maxSearchScore,
  type SearchCursor,
  searchAudience,
  SearchStatusFilter,
  searchTerms,
  wordMaxLength
} from "../../catalogue/CourseSearch.ts"
import { adminAudience, type CatalogueAudience, type PublishStatus, publicAudience, publishedNow } from "../../catalogue/Publishing.ts"
import * as Slug from "../../catalogue/Slug.ts"
import * as RecordVariants from "../../shared/RecordVariants.ts"
import { storeNow } from "./CourseRepoSuite.ts"

/** A word no other test's course holds: lower-case letters and digits. */
const newTag = () => `t${Math.random().toString(36).slice(2, 12)}`

type CourseText = Partial<Pick<NewCourse, "description" | "content_html" | "status" | "publish_at">> & { readonly title: string }

const add = (course: CourseText) =>
  Effect.flatMap(CourseRepo, (repo) =>
    repo.insert({ ...publishedNow, content_html: "", ...course, slugBase: Slug.fromTitle(course.title) }))

/** Adds courses titled by their status and `tag`, published or not at a time around the store's now. */
const byStatus = (tag: string) =>
  Effect.map(storeNow, (now) => ({
    now,
    day: { days: 1 },
    at: (status: PublishStatus, publishAt: DateTime.Utc | null) => add({ title: `${status} ${tag}`, status, publish_at: publishAt })
  }))

/** The ids `query` finds for `audience` (absent: the request names none), best first, in one page. */
const idsFor = (query: string, audience?: CatalogueAudience) =>
  Effect.flatMap(CourseRepo, (repo) =>
    repo.search({ terms: searchTerms(query), after: undefined, limit: 50, ...(audience === undefined ? {} : { audience }) })).pipe(
    Effect.map((rows) => rows.map((row) => row.id))
  )

/** Which of `ids` the list shows `audience`, in id order. */
const listedFor = (audience: CatalogueAudience, ids: ReadonlyArray<CourseId>) =>
  Effect.flatMap(CourseRepo, (repo) => repo.list({ cursor: Math.min(...ids) as CourseId, limit: 1_000, audience })).pipe(
    Effect.map(({ rows }) => rows.map((row) => row.id).filter((id) => ids.includes(id)))
  )

/** Every audience a search may have: the public's, and an admin's with each status of the search. */
const audiences: ReadonlyArray<readonly [string, CatalogueAudience]> = [
  ["public", publicAudience],
  ...SearchStatusFilter.literals.map((status) => [`admin, ${status}`, searchAudience(status)] as const)
]

/**
 * Registers the search conformance tests for `repoLayer` under `name`. The layer is
 * built once for the whole suite.
 */
export const courseSearchSuite = <E>(name: string, repoLayer: Layer.Layer<CourseRepo, E>): void => {
  describe(`CourseRepo search conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("words match whatever their case and diacritics, by the slug's transliteration", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const brulee = yield* add({ title: `Crème brûlée ${tag}` })
          const strasse = yield* add({ title: `Die Straße ${tag}`, description: "Œuvres complètes, l'été" })
          for (const query of ["creme brulee", "CRÈME BRÛLÉE", "Crème Brûlée", "crème, brûlée!", "brulee creme", "creme bru"]) {
            assert.deepStrictEqual(yield* idsFor(`${tag} ${query}`), [brulee.id], query)
          }
          assert.deepStrictEqual(yield* idsFor(`${tag} strasse oeuvres completes lete`), [strasse.id])
          assert.deepStrictEqual(yield* idsFor(`${tag} STRASSE`), [strasse.id])
          // Only the last word is a prefix; every word must match.
          assert.deepStrictEqual(yield* idsFor(`${tag} cre brulee`), [])
          assert.deepStrictEqual(yield* idsFor(`${tag} cremes`), [])
          assert.deepStrictEqual(yield* idsFor(`${tag} creme strasse`), [])
          assert.deepStrictEqual(yield* idsFor(tag), [brulee.id, strasse.id])
        }))

      it.effect("the description and the text of the body match; tag names and attribute values do not", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const course = yield* add({
            title: `Bread ${tag}`,
            description: "Learn sourdough",
            content_html: `<h2>Knead</h2><p>the <a href="https://example.com/hydration" class="external" title="tooltip">dough</a>` +
              `</p><img src="pictures/loaf.png" alt="crust"><p><b>Cr</b>&egrave;me<br>one</p><p>two</p><ul><li>12e3x</li></ul>`
          })
          for (const word of ["sourdough", "knead", "dough", "creme", "one", "two", "12e3x"]) {
            assert.deepStrictEqual(yield* idsFor(`${tag} ${word}`), [course.id], word)
          }
          for (const word of ["href", "https", "example", "hydration", "class", "external", "tooltip", "img", "src", "pictures", "png", "alt", "crust", "h2", "onetwo", "kneadthe", "12e3"]) {
            assert.deepStrictEqual(yield* idsFor(`${word} ${tag}`), [], word)
          }
        }))

      it.effect("a word in the title ranks above one in the description, which ranks above one only in the body; ties by id", () =>
        Effect.gen(function*() {
          const tag = newTag()
          // Inserted worst first, so that id order is the reverse of the expected order.
          const body = yield* add({ title: "Bodies", content_html: `<p>Stir the ${tag} gently.</p>` })
          const description = yield* add({ title: "Descriptions", description: `All about ${tag}` })
          const title = yield* add({ title: `The ${tag} course` })
          const titleToo = yield* add({ title: `${tag} again`, content_html: `<p>${tag}</p>` })
          assert.deepStrictEqual(yield* idsFor(tag), [title.id, titleToo.id, description.id, body.id])
          const rows = yield* Effect.flatMap(CourseRepo, (repo) => repo.search({ terms: [tag], after: undefined, limit: 10 }))
          assert.deepStrictEqual(rows.map((row: CourseSearchRow) => row.score), [5, 5, 2, 1])
          assert.deepStrictEqual(Object.keys(rows[0]!).sort(), [...RecordVariants.columnsOf(CourseSearchRow)].sort())
          assert.notInclude(Object.keys(rows[0]!), "content_html")
        }))

      it.effect("each word scores where it occurs best, and the scores add up", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const split = yield* add({ title: `Pasta ${tag}`, content_html: "<p>fresh basil</p>" })
          const both = yield* add({ title: `Pasta with basil ${tag}` })
          const described = yield* add({ title: `Noodles ${tag}`, description: "pasta and basil" })
          // both: 5 + 5 + 5; split: 5 + 5 + 1; described: 5 + 2 + 2.
          assert.deepStrictEqual(yield* idsFor(`${tag} pasta basil`), [both.id, split.id, described.id])
        }))

      it.effect("only courses visible now are found: no drafts, no scheduled courses", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const { at, now, day } = yield* byStatus(tag)
          yield* at("draft", null)
          yield* at("draft", DateTime.subtract(now, day))
          const scheduled = yield* at("published", DateTime.add(now, day))
          const released = yield* at("published", DateTime.subtract(now, day))
          const published = yield* at("published", null)
          assert.deepStrictEqual(yield* idsFor(tag), [released.id, published.id])
          // Naming the public's audience is the same search as naming none.
          assert.deepStrictEqual(yield* idsFor(tag, publicAudience), [released.id, published.id])
          // Publishing and unpublishing show at once.
          const repo = yield* CourseRepo
          yield* repo.update(scheduled.id, { publish_at: null })
          yield* repo.update(published.id, { status: "draft" })
          assert.deepStrictEqual(yield* idsFor(tag), [scheduled.id, released.id])
          assert.deepStrictEqual(yield* idsFor(tag, publicAudience), [scheduled.id, released.id])
        }))

      it.effect("an admin's search finds what the admin list shows for its status: all, draft, published, scheduled", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const { at, now, day } = yield* byStatus(tag)
          const draft = yield* at("draft", null)
          // A draft with a publish_at passed is still a draft; one with a publish_at ahead too.
          const draftDated = yield* at("draft", DateTime.subtract(now, day))
          const draftAhead = yield* at("draft", DateTime.add(now, day))
          const scheduled = yield* at("published", DateTime.add(now, day))
          const released = yield* at("published", DateTime.subtract(now, day))
          const published = yield* at("published", null)
          // Another word: none of these is found.
          yield* add({ title: `Elsewhere ${newTag()}`, status: "draft" })
          const ids = [draft.id, draftDated.id, draftAhead.id, scheduled.id, released.id, published.id]
          const expected: Record<string, ReadonlyArray<CourseId>> = {
            "public": [released.id, published.id],
            "admin, all": ids,
            "admin, draft": [draft.id, draftDated.id, draftAhead.id],
            "admin, published": [released.id, published.id],
            "admin, scheduled": [scheduled.id]
          }
          for (const [name, audience] of audiences) {
            const found = yield* idsFor(tag, audience)
            assert.deepStrictEqual(found, expected[name], name)
            // One rule decides: the list shows this audience the same courses.
            assert.deepStrictEqual(found, yield* listedFor(audience, ids), `${name}: as the list`)
          }
          // `all` is the admin audience without a filter.
          assert.deepStrictEqual(yield* idsFor(tag, adminAudience()), ids)
          // The rows say the state, whatever the audience.
          const rows = yield* Effect.flatMap(CourseRepo, (repo) =>
            repo.search({ terms: [tag], after: undefined, limit: 50, audience: searchAudience("all") }))
          assert.deepStrictEqual(rows.map((row) => row.status), ["draft", "draft", "draft", "published", "published", "published"])
          const millis = (at: DateTime.Utc | null) => at === null ? null : DateTime.toEpochMillis(at)
          assert.deepStrictEqual(
            rows.map((row) => millis(row.publish_at)),
            [draft, draftDated, draftAhead, scheduled, released, published].map((course) => millis(course.publish_at))
          )
          // A change of state moves a course between the filters at once.
          const repo = yield* CourseRepo
          yield* repo.update(scheduled.id, { publish_at: null })
          yield* repo.update(published.id, { status: "draft" })
          yield* repo.update(draft.id, { status: "published", publish_at: DateTime.add(now, day) })
          assert.deepStrictEqual(yield* idsFor(tag, searchAudience("draft")), [draftDated.id, draftAhead.id, published.id])
          assert.deepStrictEqual(yield* idsFor(tag, searchAudience("scheduled")), [draft.id])
          assert.deepStrictEqual(yield* idsFor(tag, searchAudience("published")), [scheduled.id, released.id])
          assert.deepStrictEqual(yield* idsFor(tag), [scheduled.id, released.id])
          assert.deepStrictEqual(yield* idsFor(tag, searchAudience("all")), ids)
        }))

      it.effect("an admin's search ranks and pages across statuses as the public's does; a status keeps the order", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const now = yield* storeNow
          const ahead = DateTime.add(now, { days: 2 })
          // Inserted so that id order is not the order of the results.
          const draftBody = yield* add({ title: "Draft body", status: "draft", content_html: `<p>${tag}</p>` })
          const scheduledBody = yield* add({ title: "Scheduled body", publish_at: ahead, content_html: `<p>${tag}</p>` })
          const publishedDescription = yield* add({ title: "Published description", description: `About ${tag}` })
          const draftTitle = yield* add({ title: `Draft ${tag}`, status: "draft" })
          const scheduledTitle = yield* add({ title: `Scheduled ${tag}`, publish_at: ahead })
          const draftDescription = yield* add({ title: "Draft description", status: "draft", description: `About ${tag}` })
          const publishedTitle = yield* add({ title: `Published ${tag}` })
          const repo = yield* CourseRepo
          const terms = searchTerms(tag)
          const all = yield* repo.search({ terms, after: undefined, limit: 50, audience: searchAudience("all") })
          assert.deepStrictEqual(all.map((row) => row.id), [
            draftTitle.id,
            scheduledTitle.id,
            publishedTitle.id,
            publishedDescription.id,
            draftDescription.id,
            draftBody.id,
            scheduledBody.id
          ])
          assert.deepStrictEqual(all.map((row) => row.score), [5, 5, 5, 2, 2, 1, 1])
          /** Every page of `limit` for `audience`, walked by the cursor of each page's last row. */
          const walk = (audience: CatalogueAudience, limit: number) =>
            Effect.gen(function*() {
              const pages: Array<ReadonlyArray<CourseId>> = []
              let after: SearchCursor | undefined
              for (;;) {
                const rows = yield* repo.search({ terms, after, limit, audience })
                if (rows.length > 0) pages.push(rows.map((row) => row.id))
                if (rows.length < limit) return pages
                after = { score: rows.at(-1)!.score, id: rows.at(-1)!.id }
              }
            })
          assert.deepStrictEqual(yield* walk(searchAudience("all"), 2), [
            [draftTitle.id, scheduledTitle.id],
            [publishedTitle.id, publishedDescription.id],
            [draftDescription.id, draftBody.id],
            [scheduledBody.id]
          ])
          assert.deepStrictEqual(yield* walk(searchAudience("draft"), 1), [[draftTitle.id], [draftDescription.id], [draftBody.id]])
          assert.deepStrictEqual(yield* walk(searchAudience("scheduled"), 1), [[scheduledTitle.id], [scheduledBody.id]])
          assert.deepStrictEqual(yield* walk(searchAudience("published"), 1), [[publishedTitle.id], [publishedDescription.id]])
          assert.deepStrictEqual(yield* walk(publicAudience, 1), [[publishedTitle.id], [publishedDescription.id]])
          // A cursor from the unfiltered walk starts a filtered one after it: the order is one.
          const afterPublishedTitle = { score: 5, id: publishedTitle.id }
          assert.deepStrictEqual(
            (yield* repo.search({ terms, after: afterPublishedTitle, limit: 50, audience: searchAudience("draft") })).map((row) => row.id),
            [draftDescription.id, draftBody.id]
          )
        }))

      it.effect("pages from a cursor neither skip nor repeat a result, across equal scores", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const ids: Array<CourseId> = []
          for (let i = 0; i < 23; i++) {
            const place = i % 3
            ids.push((yield* add({
              title: place === 0 ? `Title ${tag} ${i}` : `Course ${i}`,
              description: place === 1 ? `About ${tag}` : null,
              content_html: `<p>${tag} ${i % 2 === 0 ? "even" : "odd"}</p>`
            })).id)
          }
          const repo = yield* CourseRepo
          const terms = searchTerms(tag)
          const all = yield* repo.search({ terms, after: undefined, limit: 50 })
          assert.strictEqual(all.length, 23)
          assert.sameMembers(all.map((row) => row.id), ids)
          const walked: Array<CourseSearchRow> = []
          let after: SearchCursor | undefined
          for (let page = 0; page < 10; page++) {
            const rows = yield* repo.search({ terms, after, limit: 5 })
            walked.push(...rows)
            if (rows.length < 5) break
            after = { score: rows.at(-1)!.score, id: rows.at(-1)!.id }
          }
          assert.deepStrictEqual(walked, all)
          // Scores descend, and ids ascend within a score.
          for (let i = 1; i < all.length; i++) {
            const [a, b] = [all[i - 1]!, all[i]!]
            assert.isTrue(a.score > b.score || (a.score === b.score && a.id < b.id), `${a.score}/${a.id} before ${b.score}/${b.id}`)
          }
          assert.deepStrictEqual([...new Set(all.map((row) => row.score))], [5, 2, 1])
          // A cursor past the last result, and one ahead of the first.
          assert.deepStrictEqual(yield* repo.search({ terms, after: { score: 0, id: 2_147_483_647 as CourseId }, limit: 5 }), [])
          const ahead = yield* repo.search({ terms, after: { score: maxSearchScore, id: 1 as CourseId }, limit: 50 })
          assert.deepStrictEqual(ahead, all)
        }))

      it.effect("an update finds the course by its new words only; a delete removes it", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const repo = yield* CourseRepo
          const course = yield* add({ title: `Old title ${tag}`, description: "kept description", content_html: "<p>first body</p>" })
          yield* repo.update(course.id, { title: `New heading ${tag}` })
          assert.deepStrictEqual(yield* idsFor(`${tag} old`), [])
          assert.deepStrictEqual(yield* idsFor(`${tag} heading kept first`), [course.id])
          yield* repo.update(course.id, { content_html: "<p>second body</p>", description: null })
          assert.deepStrictEqual(yield* idsFor(`${tag} first`), [])
          assert.deepStrictEqual(yield* idsFor(`${tag} kept`), [])
          assert.deepStrictEqual(yield* idsFor(`${tag} heading second`), [course.id])
          yield* repo.update(course.id, { thumbnail_key: `courses/${course.id}/00000000-0000-4000-8000-000000000000.png` })
          assert.deepStrictEqual(yield* idsFor(`${tag} heading second`), [course.id])
          yield* repo.delete(course.id)
          assert.deepStrictEqual(yield* idsFor(tag), [])
        }))

      it.effect("a largest body of distinct words is stored and searchable; over-long words are not words", () =>
        Effect.gen(function*() {
          const tag = newTag()
          // About 200,000 distinct words in a million characters: far more than one
          // PostgreSQL tsvector could hold, had the text not been capped.
          const words = Array.from({ length: 200_000 }, (_, i) => `w${i.toString(36)}`)
          const content_html = `<p>${"x".repeat(wordMaxLength)} ${"y".repeat(wordMaxLength + 1)} ${words.join(" ")}</p>`.slice(0, 1_000_000)
          const course = yield* add({ title: `Huge ${tag}`, content_html })
          assert.deepStrictEqual(yield* idsFor(`${tag} ${words[10]}`), [course.id])
          assert.deepStrictEqual(yield* idsFor(`${tag} ${"x".repeat(wordMaxLength)}`), [course.id])
          assert.deepStrictEqual(yield* idsFor(`${tag} ${"y".repeat(wordMaxLength)}`), [])
          // Past the first 200,000 characters of text nothing is searchable.
          assert.deepStrictEqual(yield* idsFor(`${tag} ${words[150_000]}`), [])
        }), 60_000)
    })
  })
}
