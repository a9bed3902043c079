import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  adminAudience,
  publishedNow,
  Courses,
  CourseRepo,
  FileUrl,
  HtmlSanitizer,
  LessonRepo,
  MediaRepo,
  MediaUrls,
  MediaInUse,
  MemoryObjectStore,
  type MemoryPut,
  ObjectStore,
  type UploadUrlResponse,
  UploadRepo,
  Uploads,
  UploadSweep
} from "../../src/index.ts"

const uploadsLayer = (options: Parameters<typeof Uploads.layerNoDeps>[0] = {}) =>
  Layer.mergeAll(Courses.layerNoDeps.pipe(Layer.provideMerge(Uploads.layerNoDeps(options))), UploadSweep.layerNoDeps(options)).pipe(
    Layer.provideMerge(MediaUrls.layer()),
    Layer.provideMerge(LessonRepo.layerMemory),
    Layer.provideMerge(Layer.mergeAll(CourseRepo.layerMemory, UploadRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory)),
    Layer.provideMerge(Layer.mergeAll(FileUrl.layer("https://cdn.example.com"), HtmlSanitizer.layer))
  )
const withUploads = Effect.provide(uploadsLayer({ limits: { thumbnailMaxBytes: 1000, mediaMaxBytes: 5000 } }))

const bytes = (size: number) => new Uint8Array(size).fill(7)
const put = (upload: UploadUrlResponse, body: Uint8Array, headers = upload.headers) =>
  Effect.gen(function*() {
    return yield* (yield* MemoryObjectStore).put(upload.upload_url, headers, body)
  })
const stored: MemoryPut = { _tag: "Stored" }
const refused: MemoryPut = { _tag: "Refused" }
const tooLarge: MemoryPut = { _tag: "TooLarge" }
const course = Effect.gen(function*() {
  return yield* (yield* Courses).create({ title: "Uploads", content_html: "" })
})
const uuidPattern = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

describe("Uploads: course thumbnail (§4.3)", () => {
  it.effect("upload-url, PUT, finalize: the course gets thumbnail_key and thumbnail_url, and the file is recorded", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const upload = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "Cover Photo.PNG", content_type: "image/png" })
      assert.match(upload.file_key, new RegExp(`^courses/${id}/${uuidPattern}\\.png$`))
      assert.deepStrictEqual(upload.headers, { "Content-Type": "image/png" })
      const now = yield* DateTime.now
      assert.strictEqual(DateTime.toEpochMillis(upload.expires_at) - DateTime.toEpochMillis(now), 300_000)
      assert.deepStrictEqual(yield* put(upload, bytes(600)), stored)
      const finalized = yield* uploads.finalizeCourseThumbnail(id, { file_key: upload.file_key })
      assert.strictEqual(finalized.thumbnail_key, upload.file_key)
      assert.strictEqual(finalized.thumbnail_url, `https://cdn.example.com/${upload.file_key}`)
      assert.deepStrictEqual(yield* (yield* Courses).get(id, adminAudience()), finalized)
      const recorded = Option.getOrThrow(yield* (yield* MediaRepo).findByKey(upload.file_key))
      assert.strictEqual(recorded.size_bytes, 600)
      assert.strictEqual(recorded.name, "Cover Photo.PNG")
    }).pipe(withUploads))

  it.effect("finalize twice is idempotent; 50 concurrent finalizes all succeed with one record", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const upload = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "a.jpg", content_type: "image/jpeg" })
      yield* put(upload, bytes(10))
      const first = yield* uploads.finalizeCourseThumbnail(id, { file_key: upload.file_key })
      const again = yield* uploads.finalizeCourseThumbnail(id, { file_key: upload.file_key })
      assert.strictEqual(again.thumbnail_key, first.thumbnail_key)
      const media = yield* uploads.mediaUploadUrl({ filename: "clip.mp4", type: "video/mp4" })
      yield* put(media, bytes(20))
      const results = yield* Effect.forEach(
        Array.from({ length: 50 }),
        () => uploads.finalizeMedia({ file_key: media.file_key }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(results.map((file) => file.id)).size, 1)
      const page = yield* uploads.listMedia({ cursor: undefined, limit: 50 })
      assert.deepStrictEqual(page.items.map((file) => file.file_key), [upload.file_key, media.file_key])
    }).pipe(withUploads))

  it.effect("a key of another course, a forged key or a media key is not found (404)", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const a = yield* course
      const b = yield* course
      const upload = yield* uploads.courseThumbnailUploadUrl(a.id, { file_name: "a.png", content_type: "image/png" })
      yield* put(upload, bytes(10))
      const media = yield* uploads.mediaUploadUrl({ filename: "m.png", type: "image/png" })
      yield* put(media, bytes(10))
      for (const [courseId, key] of [[b.id, upload.file_key], [a.id, `courses/${a.id}/forged.png`], [a.id, media.file_key]] as const) {
        const error = yield* Effect.flip(uploads.finalizeCourseThumbnail(courseId, { file_key: key }))
        assert.strictEqual(error._tag, "UploadNotFound")
      }
      assert.strictEqual((yield* Effect.flip(uploads.finalizeMedia({ file_key: upload.file_key })))._tag, "UploadNotFound")
      assert.isNull((yield* (yield* Courses).get(b.id, adminAudience())).thumbnail_key)
    }).pipe(withUploads))

  it.effect("an unknown course is 404 for both steps", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const error = yield* Effect.flip(uploads.courseThumbnailUploadUrl(999 as never, { file_name: "a.png", content_type: "image/png" }))
      assert.strictEqual(error._tag, "CourseNotFound")
    }).pipe(withUploads))
})

describe("Uploads: what finalize checks", () => {
  it.effect("before the PUT: 409 and nothing recorded; after expiry with nothing uploaded: 410", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "m.png", type: "image/png" })
      assert.strictEqual((yield* Effect.flip(uploads.finalizeMedia({ file_key: media.file_key })))._tag, "UploadNotReceived")
      assert.deepStrictEqual(yield* (yield* MediaRepo).findByKey(media.file_key), Option.none())
      yield* TestClock.adjust(Duration.minutes(6))
      assert.strictEqual((yield* Effect.flip(uploads.finalizeMedia({ file_key: media.file_key })))._tag, "UploadExpired")
    }).pipe(withUploads))

  it.effect("a PUT that started before expiry can be finalized later, within the grace period", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "m.png", type: "image/png" })
      yield* put(media, bytes(10))
      yield* TestClock.adjust(Duration.minutes(30))
      assert.strictEqual((yield* uploads.finalizeMedia({ file_key: media.file_key })).size_bytes, 10)
    }).pipe(withUploads))

  it.effect("a PUT of undeclared size is capped at the purpose's limit by a store that can (413)", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      // The thumbnail limit (1000), not the larger media limit.
      const thumbnail = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "big.png", content_type: "image/png" })
      assert.deepStrictEqual(yield* put(thumbnail, bytes(1001)), tooLarge)
      assert.deepStrictEqual(yield* put(thumbnail, bytes(1000)), stored)
      const media = yield* uploads.mediaUploadUrl({ filename: "big.mp4", type: "video/mp4" })
      assert.deepStrictEqual(yield* put(media, bytes(5001)), tooLarge)
    }).pipe(withUploads))

  it.effect("larger than the limit in storage: 413 and the object deleted", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "big.mp4", type: "video/mp4" })
      // Stored whole, as a store that cannot cap an undeclared length (S3) would.
      yield* (yield* MemoryObjectStore).putObject(media.file_key, bytes(5001), "video/mp4")
      const error = yield* Effect.flip(uploads.finalizeMedia({ file_key: media.file_key }))
      assert.strictEqual(error._tag, "FileTooLarge")
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(media.file_key), Option.none())
      assert.deepStrictEqual(yield* (yield* MediaRepo).findByKey(media.file_key), Option.none())
    }).pipe(withUploads))

  it.effect("finalizing again after the limits were lowered answers the record and keeps the object", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const thumbnail = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "a.png", content_type: "image/png" })
      const media = yield* uploads.mediaUploadUrl({ filename: "a.mp4", type: "video/mp4" })
      yield* put(thumbnail, bytes(900))
      yield* put(media, bytes(4000))
      const course1 = yield* uploads.finalizeCourseThumbnail(id, { file_key: thumbnail.file_key })
      const file = yield* uploads.finalizeMedia({ file_key: media.file_key })
      // Both files are over the lowered limits now; a retried finalize must not delete them.
      const lowered = Uploads.layerNoDeps({ limits: { thumbnailMaxBytes: 100, mediaMaxBytes: 100 } })
      assert.deepStrictEqual(
        yield* Effect.flatMap(Uploads, (lower) => lower.finalizeMedia({ file_key: media.file_key })).pipe(Effect.provide(lowered)),
        file
      )
      assert.deepStrictEqual(
        yield* Effect.flatMap(Uploads, (lower) => lower.finalizeCourseThumbnail(id, { file_key: thumbnail.file_key })).pipe(Effect.provide(lowered)),
        course1
      )
      const store = yield* ObjectStore
      assert.strictEqual(Option.getOrThrow(yield* store.head(media.file_key)).size, 4000)
      assert.strictEqual(Option.getOrThrow(yield* store.head(thumbnail.file_key)).size, 900)
    }).pipe(withUploads))

  it.effect("another type in storage than was issued: 415 and the object deleted", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "a.png", type: "image/png" })
      // Written beside the presigned URL, as a misbehaving store or client might.
      yield* (yield* MemoryObjectStore).putObject(media.file_key, bytes(3), "text/html")
      assert.strictEqual((yield* Effect.flip(uploads.finalizeMedia({ file_key: media.file_key })))._tag, "UnsupportedFileType")
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(media.file_key), Option.none())
    }).pipe(withUploads))
})

describe("Uploads: private media and deleting media", () => {
  it.effect("visibility private: a private/media/ key, and finalize, the list and the record carry a signed url that expires", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const upload = yield* uploads.mediaUploadUrl({ filename: "lecture.mp4", type: "video/mp4", visibility: "private" })
      assert.match(upload.file_key, new RegExp(`^private/media/${uuidPattern}\\.mp4$`))
      assert.deepStrictEqual(yield* put(upload, bytes(40)), stored)
      const finalized = yield* uploads.finalizeMedia({ file_key: upload.file_key })
      assert.strictEqual(finalized.visibility, "private")
      assert.strictEqual(DateTime.formatIso(finalized.url_expires_at!), "1970-01-01T04:00:00.000Z")
      // The signed URL reads the bytes; the permanent public URL of the key is never handed out.
      const played = yield* (yield* MemoryObjectStore).get(finalized.url)
      assert.deepStrictEqual(played, { _tag: "Found", body: bytes(40) })
      assert.notInclude(finalized.url, "cdn.example.com")
      const publicOne = yield* uploads.mediaUploadUrl({ filename: "trailer.mp4", type: "video/mp4" })
      assert.match(publicOne.file_key, new RegExp(`^media/${uuidPattern}\\.mp4$`))
      yield* put(publicOne, bytes(5))
      const shown = yield* uploads.finalizeMedia({ file_key: publicOne.file_key })
      assert.deepStrictEqual([shown.visibility, shown.url, shown.url_expires_at], ["public", `https://cdn.example.com/${publicOne.file_key}`, null])
      const listed = (yield* uploads.listMedia({ cursor: undefined, limit: 10 })).items
      assert.deepStrictEqual(listed.map((file) => [file.file_key, file.visibility]), [[upload.file_key, "private"], [publicOne.file_key, "public"]])
      // Signed anew for each response; once expired, the old URL no longer reads.
      yield* TestClock.adjust(Duration.hours(4))
      assert.strictEqual((yield* (yield* MemoryObjectStore).get(finalized.url))._tag, "Refused")
      const again = (yield* uploads.listMedia({ cursor: undefined, limit: 1 })).items[0]!
      assert.strictEqual(DateTime.formatIso(again.url_expires_at!), "1970-01-01T08:00:00.000Z")
      assert.strictEqual((yield* (yield* MemoryObjectStore).get(again.url))._tag, "Found")
    }).pipe(withUploads))

  it.effect("deleteMedia: unknown key 404; used by a lesson 409 naming it; else record, intent and object are gone", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      assert.strictEqual((yield* Effect.flip(uploads.deleteMedia("media/unknown.mp4")))._tag, "MediaNotFound")
      const upload = yield* uploads.mediaUploadUrl({ filename: "v.mp4", type: "video/mp4", visibility: "private" })
      yield* put(upload, bytes(8))
      yield* uploads.finalizeMedia({ file_key: upload.file_key })
      const lesson = yield* (yield* LessonRepo).insert(id, { ...publishedNow, section_id: null, title: "L", content_html: "", video_key: upload.file_key, is_preview: false })
      const inUse = yield* Effect.flip(uploads.deleteMedia(upload.file_key))
      assert.deepStrictEqual(inUse, new MediaInUse({ file_key: upload.file_key, lessons: [{ course_id: id, lesson_id: lesson.id }], thumbnail_of: null }))
      assert.include(inUse.message, `lesson ${lesson.id} of course ${id}`)
      assert.isTrue(Option.isSome(yield* (yield* ObjectStore).head(upload.file_key)))
      yield* (yield* LessonRepo).update(id, lesson.id, { video_key: null })
      yield* uploads.deleteMedia(upload.file_key)
      assert.deepStrictEqual(yield* (yield* MediaRepo).findByKey(upload.file_key), Option.none())
      assert.deepStrictEqual(yield* (yield* UploadRepo).find(upload.file_key), Option.none())
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(upload.file_key), Option.none())
      assert.strictEqual((yield* Effect.flip(uploads.deleteMedia(upload.file_key)))._tag, "MediaNotFound")
    }).pipe(withUploads))

  it.effect("listMedia says what uses each file, as deleteMedia's 409 names it: lessons by course and id, the course it is the thumbnail of", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const lessons = yield* LessonRepo
      const { id } = yield* course
      const other = yield* course
      const file = (filename: string) =>
        Effect.gen(function*() {
          const upload = yield* uploads.mediaUploadUrl({ filename, type: "video/mp4", visibility: "private" })
          yield* put(upload, bytes(4))
          return (yield* uploads.finalizeMedia({ file_key: upload.file_key })).file_key
        })
      const played = yield* file("played.mp4")
      const unused = yield* file("unused.mp4")
      const thumbnail = yield* uploads.courseThumbnailUploadUrl(other.id, { file_name: "c.png", content_type: "image/png" })
      yield* put(thumbnail, bytes(6))
      yield* uploads.finalizeCourseThumbnail(other.id, { file_key: thumbnail.file_key })
      const paid = { ...publishedNow, section_id: null, content_html: "", video_key: played, is_preview: false }
      const first = yield* lessons.insert(other.id, { ...paid, title: "In the other course" })
      const second = yield* lessons.insert(id, { ...paid, title: "In the first course" })
      const page = yield* uploads.listMedia({ cursor: undefined, limit: 10 })
      assert.deepStrictEqual(page.items.map((item) => [item.file_key, item.used_by]), [
        [played, { lessons: [{ course_id: id, lesson_id: second.id }, { course_id: other.id, lesson_id: first.id }], thumbnail_of: null }],
        [unused, { lessons: [], thumbnail_of: null }],
        [thumbnail.file_key, { lessons: [], thumbnail_of: other.id }]
      ])
      const refused = yield* Effect.flip(uploads.deleteMedia(played))
      assert.deepStrictEqual(refused, new MediaInUse({ file_key: played, ...page.items[0]!.used_by }))
    }).pipe(withUploads))

  it.effect("a course's current thumbnail is not deleted through the library; deleting the course removes it", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const upload = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "c.png", content_type: "image/png" })
      yield* put(upload, bytes(6))
      yield* uploads.finalizeCourseThumbnail(id, { file_key: upload.file_key })
      const refused = yield* Effect.flip(uploads.deleteMedia(upload.file_key))
      assert.deepStrictEqual(refused, new MediaInUse({ file_key: upload.file_key, lessons: [], thumbnail_of: id }))
      yield* (yield* Courses).delete(id)
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(upload.file_key), Option.none())
      assert.deepStrictEqual(yield* (yield* MediaRepo).findByKey(upload.file_key), Option.none())
    }).pipe(withUploads))

  it.effect("deleting a course keeps a thumbnail another course's lesson plays", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const other = yield* course
      const upload = yield* uploads.courseThumbnailUploadUrl(id, { file_name: "c.png", content_type: "image/png" })
      yield* put(upload, bytes(6))
      yield* uploads.finalizeCourseThumbnail(id, { file_key: upload.file_key })
      yield* (yield* LessonRepo).insert(other.id, { ...publishedNow, section_id: null, title: "L", content_html: "", video_key: upload.file_key, is_preview: true })
      yield* (yield* Courses).delete(id)
      assert.isTrue(Option.isSome(yield* (yield* ObjectStore).head(upload.file_key)))
      assert.isTrue(Option.isSome(yield* (yield* MediaRepo).findByKey(upload.file_key)))
    }).pipe(withUploads))
})

describe("Uploads: what upload-url checks", () => {
  it.effect("SVG and other types are refused (415); a declared size over the limit is 413; a declared size is signed", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const { id } = yield* course
      const svg = yield* Effect.flip(uploads.courseThumbnailUploadUrl(id, { file_name: "x.svg", content_type: "image/svg+xml" }))
      assert.strictEqual(svg._tag, "UnsupportedFileType")
      const video = yield* Effect.flip(uploads.courseThumbnailUploadUrl(id, { file_name: "x.mp4", content_type: "video/mp4" }))
      assert.strictEqual(video._tag, "UnsupportedFileType")
      const big = yield* Effect.flip(uploads.courseThumbnailUploadUrl(id, { file_name: "x.png", content_type: "image/png", size_bytes: 1001 }))
      assert.strictEqual(big._tag, "FileTooLarge")
      const sized = yield* uploads.mediaUploadUrl({ filename: "x.mp4", type: "video/mp4", size_bytes: 100 })
      assert.deepStrictEqual(sized.headers, { "Content-Type": "video/mp4", "Content-Length": "100" })
      assert.deepStrictEqual(yield* put(sized, bytes(99), { "Content-Type": "video/mp4" }), refused)
    }).pipe(withUploads))

  it.effect("the key's extension is the content type's, whatever the file name says; nothing of the name enters it", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["evil.html", "image/png", "png"],
        ["photo.JPEG", "image/jpeg", "jpg"],
        ["no-extension", "image/png", "png"],
        ["../../etc/passwd", "image/webp", "webp"],
        ["..\\..\\win.ini", "image/gif", "gif"],
        ["lecture.svg.html", "video/mp4", "mp4"],
        ["clip.mov", "video/quicktime", "mov"],
        ["weird.ext-with-dash", "video/quicktime", "mov"],
        ["x.thisistoolong", "image/avif", "avif"]
      ]
      for (const [filename, type, extension] of cases) {
        const upload = yield* uploads.mediaUploadUrl({ filename, type })
        assert.match(upload.file_key, new RegExp(`^media/${uuidPattern}\\.${extension}$`), filename)
      }
      const traversal = yield* uploads.mediaUploadUrl({ filename: "../../evil.png", type: "image/png" })
      yield* put(traversal, bytes(1))
      assert.strictEqual((yield* uploads.finalizeMedia({ file_key: traversal.file_key })).name, "evil.png")
    }).pipe(withUploads))
})

describe("Uploads: the sweep", () => {
  it.effect("removes abandoned intents with their objects and orphans; keeps recorded and pending files", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const store = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const intents = yield* UploadRepo
      const finalized = yield* uploads.mediaUploadUrl({ filename: "kept.png", type: "image/png" })
      yield* put(finalized, bytes(1))
      yield* uploads.finalizeMedia({ file_key: finalized.file_key })
      const abandoned = yield* uploads.mediaUploadUrl({ filename: "abandoned.png", type: "image/png" })
      yield* put(abandoned, bytes(1))
      const neverPut = yield* uploads.mediaUploadUrl({ filename: "never.png", type: "image/png" })
      yield* memory.putObject("media/orphan.png", bytes(1), "image/png")
      yield* memory.putObject("private/media/orphan.mp4", bytes(1), "video/mp4")
      yield* memory.putObject("elsewhere/not-ours.png", bytes(1), "image/png")
      // Within the grace period nothing goes.
      yield* TestClock.adjust(Duration.minutes(30))
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
      const late = yield* uploads.mediaUploadUrl({ filename: "late.png", type: "image/png" })
      yield* put(late, bytes(1))
      // Past expiry (5 minutes) + grace (1 hour) + the sweep's margin (5 minutes).
      yield* TestClock.adjust(Duration.minutes(45))
      const report = yield* (yield* UploadSweep).run
      assert.deepStrictEqual(report, { abandoned: 2, adopted: 0, orphans: 2, incomplete: 0 })
      assert.strictEqual(Option.getOrUndefined(yield* store.head(finalized.file_key))?.size, 1)
      assert.strictEqual(Option.getOrUndefined(yield* store.head(late.file_key))?.size, 1, "an intent still within expiry + grace keeps its object")
      assert.strictEqual(Option.getOrUndefined(yield* store.head("elsewhere/not-ours.png"))?.size, 1, "only the service's prefixes are reconciled")
      for (const key of [abandoned.file_key, "media/orphan.png", "private/media/orphan.mp4"]) assert.deepStrictEqual(yield* store.head(key), Option.none(), key)
      assert.deepStrictEqual(yield* intents.find(neverPut.file_key), Option.none())
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
    }).pipe(withUploads))

  it.effect("adopts an abandoned intent whose file was recorded (finalize stopped before marking it)", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "a.png", type: "image/png" })
      yield* put(media, bytes(4))
      yield* (yield* MediaRepo).upsert({ key: media.file_key, name: "a.png", size_bytes: 4, content_type: "image/png" })
      yield* TestClock.adjust(Duration.hours(2))
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 0, adopted: 1, orphans: 0, incomplete: 0 })
      assert.strictEqual(Option.getOrUndefined(yield* (yield* ObjectStore).head(media.file_key))?.size, 4)
    }).pipe(withUploads))
})

describe("Uploads: the sweep with several instances", () => {
  it.effect("between the end of the grace period and the margin, finalize refuses (410) and the sweep still waits", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const media = yield* uploads.mediaUploadUrl({ filename: "edge.png", type: "image/png" })
      yield* put(media, bytes(1))
      // Expiry (5 minutes) + grace (1 hour): finalize stops here, by this instance's clock.
      yield* TestClock.adjust(Duration.minutes(65))
      const refused = yield* Effect.flip(uploads.finalizeMedia({ file_key: media.file_key }))
      assert.strictEqual(refused._tag, "UploadExpired")
      // An instance whose clock runs ahead by up to the margin does not sweep it yet.
      yield* TestClock.adjust(Duration.minutes(5))
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
      assert.strictEqual(Option.getOrUndefined(yield* (yield* ObjectStore).head(media.file_key))?.size, 1)
      yield* TestClock.adjust(Duration.millis(1))
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 1, adopted: 0, orphans: 0, incomplete: 0 })
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(media.file_key), Option.none())
    }).pipe(withUploads))

  it.effect("sweeps running at once, next to finalizes, leave the same state as one sweep", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const store = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const abandoned = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          const upload = yield* uploads.mediaUploadUrl({ filename: `old-${i}.png`, type: "image/png" })
          if (i % 2 === 0) yield* put(upload, bytes(1))
          return upload
        }))
      for (let i = 0; i < 10; i++) yield* memory.putObject(`media/orphan-${i}.png`, bytes(1), "image/png")
      yield* TestClock.adjust(Duration.hours(2))
      const fresh = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          const upload = yield* uploads.mediaUploadUrl({ filename: `new-${i}.png`, type: "image/png" })
          yield* put(upload, bytes(2))
          return upload
        }))
      const [sweeps, finalized] = yield* Effect.all([
        Effect.all([(yield* UploadSweep).run, (yield* UploadSweep).run, (yield* UploadSweep).run], { concurrency: "unbounded" }),
        Effect.forEach(fresh, (upload) => uploads.finalizeMedia({ file_key: upload.file_key }), { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      // Each pass may count what another removed at the same moment; none fails.
      assert.isAtLeast(sweeps.reduce((sum, report) => sum + report.abandoned, 0), 20)
      assert.strictEqual(finalized.length, 10)
      for (const upload of abandoned) assert.deepStrictEqual(yield* store.head(upload.file_key), Option.none(), upload.file_key)
      for (let i = 0; i < 10; i++) assert.deepStrictEqual(yield* store.head(`media/orphan-${i}.png`), Option.none())
      for (const upload of fresh) assert.strictEqual(Option.getOrUndefined(yield* store.head(upload.file_key))?.size, 2, upload.file_key)
      assert.deepStrictEqual(yield* (yield* UploadSweep).run, { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
      const library = yield* uploads.listMedia({ cursor: undefined, limit: 50 })
      assert.deepStrictEqual(library.items.map((file) => file.file_key).sort(), fresh.map((upload) => upload.file_key).sort())
    }).pipe(withUploads))
})

describe("UploadSweep.layerSchedule", () => {
  it.effect("runs the sweep on its schedule while the layer lives", () =>
    Effect.gen(function*() {
      const memory = yield* MemoryObjectStore
      const store = yield* ObjectStore
      yield* memory.putObject("media/orphan-a.png", bytes(1), "image/png")
      yield* TestClock.adjust(Duration.hours(2))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(UploadSweep.layerSchedule(Duration.minutes(10)))
        // The first pass runs at once.
        yield* TestClock.adjust(Duration.millis(1))
        assert.deepStrictEqual(yield* store.head("media/orphan-a.png"), Option.none())
        yield* memory.putObject("media/orphan-b.png", bytes(1), "image/png")
        yield* TestClock.adjust(Duration.hours(1))
        yield* TestClock.adjust(Duration.minutes(10))
        assert.deepStrictEqual(yield* store.head("media/orphan-b.png"), Option.none())
      }))
      // Once the layer is released, no more passes.
      yield* memory.putObject("media/orphan-c.png", bytes(1), "image/png")
      yield* TestClock.adjust(Duration.hours(3))
      assert.strictEqual(Option.getOrUndefined(yield* store.head("media/orphan-c.png"))?.size, 1)
    }).pipe(withUploads))
})
