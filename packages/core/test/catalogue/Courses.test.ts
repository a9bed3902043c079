import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { adminAudience, Courses, type CourseId, CourseListItem, CourseRepo, FileUrl, publicAudience, RecordVariants } from "../../src/index.ts"

const withCourses = Effect.provide(Courses.layerMemory("https://cdn.example.com/"))


/** The keys of a list item the public is shown: the list item's, without the admins'. */
const publicListKeys = RecordVariants.columnsOf(CourseListItem).filter((key) => !RecordVariants.adminOnlyKeys(CourseListItem).includes(key)).sort()

describe("Courses", () => {
  it.effect("create derives the slug and returns the spec's fields", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const course = yield* catalogue.create({ title: "Crème Brûlée 101", content_html: "<p>x</p>" })
      assert.strictEqual(course.slug, "creme-brulee-101")
      assert.isNull(course.thumbnail_key)
      assert.isNull(course.thumbnail_url)
      assert.deepStrictEqual(yield* catalogue.get(course.id, adminAudience()), course)
    }).pipe(withCourses))

  it.effect("a title without letters gets course-<id>", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const course = yield* catalogue.create({ title: "🎓", content_html: "" })
      assert.strictEqual(course.slug, `course-${course.id}`)
    }).pipe(withCourses))

  it.effect("list walks pages with an inclusive cursor and names the next one", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      for (let i = 1; i <= 7; i++) yield* catalogue.create({ title: `Course ${i}`, content_html: "<p>body</p>" })
      const seen: Array<number> = []
      let cursor: CourseId | undefined
      let pages = 0
      do {
        const page = yield* catalogue.list({ cursor, limit: 3, audience: publicAudience })
        seen.push(...page.items.map((item) => item.id))
        // The list item's fields the public sees, as the record declares them: no body, no admin's field.
        assert.deepStrictEqual(Object.keys(page.items[0]!).sort(), publicListKeys)
        assert.includeMembers(publicListKeys, ["id", "slug", "thumbnail_url", "title"])
        assert.notIncludeMembers(Object.keys(page.items[0]!), ["content_html", "status", "publish_at", "thumbnail_key"])
        cursor = page.next
        pages++
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, [1, 2, 3, 4, 5, 6, 7])
      assert.strictEqual(pages, 3)
      const exact = yield* catalogue.list({ cursor: 5 as CourseId, limit: 3, audience: publicAudience })
      assert.deepStrictEqual(exact.items.map((item) => item.id), [5, 6, 7])
      assert.isUndefined(exact.next)
      const beyond = yield* catalogue.list({ cursor: 99 as CourseId, limit: 3, audience: publicAudience })
      assert.deepStrictEqual(beyond, { items: [], next: undefined, version: yield* catalogue.version })
    }).pipe(withCourses))

  it.effect("update keeps the slug; delete makes the course unknown", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const course = yield* catalogue.create({ title: "Original", content_html: "<p>1</p>" })
      const updated = yield* catalogue.update(course.id, { title: "Renamed", content_html: "<p>2</p>" })
      assert.strictEqual(updated.slug, "original")
      assert.strictEqual(updated.title, "Renamed")
      assert.strictEqual(updated.content_html, "<p>2</p>")
      yield* catalogue.delete(course.id)
      const error = yield* Effect.flip(catalogue.get(course.id, adminAudience()))
      assert.strictEqual(error._tag, "CourseNotFound")
      assert.strictEqual(error.message, `No course has id ${course.id}.`)
    }).pipe(withCourses))

  it.effect("content_html is sanitized on create and update, and stored as sanitized", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const repo = yield* CourseRepo
      const dirty = "Sure! <p onclick=\"steal()\" class=\"text-center evil\">Hi<script>alert(1)</script></p><p></p>"
      const course = yield* catalogue.create({ title: "Sanitized", content_html: dirty })
      // A person's lead-in text stays (stage 1 is for model output only).
      assert.strictEqual(course.content_html, "Sure!<p class=\"text-center\">Hi</p>")
      assert.strictEqual((yield* repo.findById(course.id)).content_html, course.content_html)
      const updated = yield* catalogue.update(course.id, { content_html: "<a href=\"javascript:x\" target=\"_blank\">l</a>" })
      assert.strictEqual(updated.content_html, "<a target=\"_blank\" rel=\"noopener noreferrer\">l</a>")
      assert.strictEqual((yield* catalogue.update(course.id, { title: "Renamed" })).content_html, updated.content_html)
    }).pipe(withCourses))

  it.effect("20 concurrent creates of one title give 20 distinct slugs", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const courses = yield* Effect.forEach(
        Array.from({ length: 20 }, () => ({ title: "Popular", content_html: "" })),
        (input) => catalogue.create(input),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(courses.map((course) => course.slug)).size, 20)
    }).pipe(withCourses))
})

describe("FileUrl", () => {
  it.effect("joins the CDN base and an escaped key; layerConfig reads CDN_URL", () =>
    Effect.gen(function*() {
      const files = yield* FileUrl
      assert.strictEqual(files.publicUrl("courses/12/a b.jpg"), "https://cdn.test/files/courses/12/a%20b.jpg")
    }).pipe(
      Effect.provide(FileUrl.layerConfig),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { CDN_URL: "https://cdn.test/files" } })))
    ))
})
