import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Schema } from "effect"
import { CourseRepo, Courses, type CourseUpdate, LessonRepo, Lessons, MemoryCoursekit, PublishAtInput, publishAtStored, withPublishAtStored } from "../../src/index.ts"

const decode = Schema.decodeUnknownSync(PublishAtInput)
const encode = Schema.encodeSync(PublishAtInput)
const hour = 60 * 60 * 1000

/** The offset of a decoded instant in milliseconds, or "Utc" when it was written with `Z`. */
const offsetOf = (at: PublishAtInput) => DateTime.isUtc(at) ? "Utc" : DateTime.zonedOffset(at)

describe("PublishAtInput", () => {
  it.each([
    ["2026-12-01T10:00:00+01:00", hour, Date.UTC(2026, 11, 1, 9)],
    ["2026-12-01T10:00:00-05:30", -5.5 * hour, Date.UTC(2026, 11, 1, 15, 30)],
    ["2026-07-01T10:00+02:00", 2 * hour, Date.UTC(2026, 6, 1, 8)],
    ["2026-12-01T09:00:00+00:00", 0, Date.UTC(2026, 11, 1, 9)],
    ["9999-12-31T23:59:59.999+00:00", 0, Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
    ["1970-01-01T00:30:00-01:00", -hour, Date.UTC(1970, 0, 1, 1, 30)]
  ])("decodes %j with the writer's offset kept", (text, offset, instant) => {
    const at = decode(text)
    assert.isTrue(DateTime.isZoned(at))
    assert.strictEqual(offsetOf(at), offset)
    assert.strictEqual(DateTime.toEpochMillis(at), instant)
  })

  it.each([
    ["2026-12-01T09:00:00Z", Date.UTC(2026, 11, 1, 9)],
    ["2026-12-01t09:00:00.5z", Date.UTC(2026, 11, 1, 9, 0, 0, 500)],
    ["1970-01-01T00:00:00Z", 0]
  ])("decodes %j (Z) as UTC", (text, instant) => {
    const at = decode(text)
    assert.strictEqual(offsetOf(at), "Utc")
    assert.strictEqual(DateTime.toEpochMillis(at), instant)
  })

  const rfc3339 = "publish_at must be an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z"
  const range = "publish_at must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"
  it.each([
    ["1969-12-31T23:00:00Z", range],
    ["1970-01-01T00:30:00+01:00", range],
    ["9999-12-31T23:59:59-23:59", range],
    ["10000-01-01T00:00:00Z", rfc3339],
    ["2026-12-01T09:00:00", rfc3339],
    ["2026-12-01", rfc3339],
    ["tomorrow", rfc3339],
    ["2026-12-01T24:00:00Z", rfc3339],
    ["2026-12-01T09:00:00+24:00", rfc3339],
    ["2026-12-01T09:00:00+0100", rfc3339],
    ["2026-12-01T09:00:00Z\u0000", rfc3339],
    ["2026-12-01T09:00:00\u0000+01:00", rfc3339],
    ["2026-02-30T09:00:00Z", "publish_at names a day that does not exist (2026-02-30)"]
  ])("refuses %j: %s", (text, message) => {
    const exit = Schema.decodeUnknownExit(PublishAtInput)(text)
    assert.isTrue(Exit.isFailure(exit))
    assert.include(String(exit), message)
  })

  it("refuses what is not a string", () => {
    assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(PublishAtInput)(1764576000000)))
    assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(PublishAtInput)(new Date(0))))
  })

  it.each([
    ["2026-12-01T10:00:00+01:00", "2026-12-01T10:00:00.000+01:00"],
    ["2026-12-01T10:00:00.25-05:30", "2026-12-01T10:00:00.250-05:30"],
    ["2026-12-01T09:00:00+00:00", "2026-12-01T09:00:00.000+00:00"],
    // RFC 3339's "offset unknown" is read as the offset it spells, zero.
    ["2026-12-01T09:00:00-00:00", "2026-12-01T09:00:00.000+00:00"],
    ["2026-12-01T09:00:00Z", "2026-12-01T09:00:00.000Z"]
  ])("encodes %j back with its offset: %j", (text, encoded) => {
    assert.strictEqual(encode(decode(text)), encoded)
    const again = decode(encode(decode(text)))
    assert.strictEqual(offsetOf(again), offsetOf(decode(text)))
    assert.strictEqual(DateTime.toEpochMillis(again), DateTime.toEpochMillis(decode(text)))
  })

  it("encodes a UTC value as …Z, and a named zone as its offset at that instant", () => {
    assert.strictEqual(encode(DateTime.makeUnsafe(Date.UTC(2026, 11, 1, 9))), "2026-12-01T09:00:00.000Z")
    assert.strictEqual(encode(DateTime.makeZonedUnsafe(Date.UTC(2026, 11, 1, 9), { timeZone: "Europe/Paris" })), "2026-12-01T10:00:00.000+01:00")
    assert.strictEqual(encode(DateTime.makeZonedUnsafe(Date.UTC(2026, 6, 1, 8), { timeZone: "Europe/Paris" })), "2026-07-01T10:00:00.000+02:00")
    assert.strictEqual(encode(DateTime.makeZonedUnsafe(Date.UTC(2026, 11, 1, 9), { timeZone: DateTime.zoneMakeOffset(-5.5 * hour) })), "2026-12-01T03:30:00.000-05:30")
  })
})

describe("publishAtStored", () => {
  it("is the same instant in UTC", () => {
    const stored = publishAtStored(decode("2026-12-01T10:00:00+01:00"))!
    assert.isTrue(DateTime.isUtc(stored))
    assert.strictEqual(DateTime.formatIso(stored), "2026-12-01T09:00:00.000Z")
    assert.strictEqual(DateTime.formatIso(publishAtStored(decode("2026-12-01T10:00:00-05:30"))!), "2026-12-01T15:30:00.000Z")
    assert.isNull(publishAtStored(null))
  })

  it("changes only a present publish_at", () => {
    const untouched: CourseUpdate = { title: "x" }
    assert.deepStrictEqual(withPublishAtStored(untouched), { title: "x" })
    const cleared: CourseUpdate = { title: "x", publish_at: null }
    assert.deepStrictEqual(withPublishAtStored(cleared), { title: "x", publish_at: null })
    const changed = withPublishAtStored<CourseUpdate>({ title: "x", publish_at: decode("2026-12-01T10:00:00+01:00") })
    assert.strictEqual(changed.title, "x")
    assert.isTrue(DateTime.isUtc(changed.publish_at!))
    assert.strictEqual(DateTime.toEpochMillis(changed.publish_at!), Date.UTC(2026, 11, 1, 9))
  })
})

describe("publish_at with an offset through the use cases", () => {
  const withCore = Effect.provide(MemoryCoursekit.layerMemory({ cdnUrl: "https://cdn.example.com" }))
  const paris = decode("2099-12-01T10:00:00+01:00")
  const newYork = decode("2099-12-01T10:00:00-05:00")

  it.effect("courses are stored and shown in UTC, on create and on update", () =>
    Effect.gen(function*() {
      const courses = yield* Courses
      const repo = yield* CourseRepo
      const created = yield* courses.create({ title: "Offsets", content_html: "", publish_at: paris })
      assert.strictEqual(DateTime.formatIso(created.publish_at!), "2099-12-01T09:00:00.000Z")
      const stored = yield* repo.findById(created.id)
      assert.isTrue(DateTime.isUtc(stored.publish_at!))
      assert.strictEqual(DateTime.toEpochMillis(stored.publish_at!), Date.UTC(2099, 11, 1, 9))
      const updated = yield* courses.update(created.id, { publish_at: newYork })
      assert.isTrue(DateTime.isUtc(updated.publish_at!))
      assert.strictEqual(DateTime.formatIso((yield* repo.findById(created.id)).publish_at!), "2099-12-01T15:00:00.000Z")
    }).pipe(withCore))

  it.effect("lessons are stored and shown in UTC, on create and on update", () =>
    Effect.gen(function*() {
      const course = yield* (yield* Courses).create({ title: "Lessons with offsets", content_html: "" })
      const lessons = yield* Lessons
      const repo = yield* LessonRepo
      const created = yield* lessons.create(course.id, { title: "Later", publish_at: paris })
      assert.isTrue(DateTime.isUtc(created.publish_at!))
      assert.strictEqual(DateTime.formatIso(created.publish_at!), "2099-12-01T09:00:00.000Z")
      yield* lessons.update(course.id, created.id, { publish_at: newYork })
      const [stored] = yield* repo.list(course.id)
      assert.isTrue(DateTime.isUtc(stored!.publish_at!))
      assert.strictEqual(DateTime.formatIso(stored!.publish_at!), "2099-12-01T15:00:00.000Z")
    }).pipe(withCore))
})
