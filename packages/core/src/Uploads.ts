/**
 * The upload use cases: both flows of the specification — a course thumbnail (§4.3) and
 * the admin media library (§4.4) — and the sweep that removes what was never finalized.
 *
 * An upload is three steps. `*UploadUrl` checks the declared type and size, records an
 * intent for a server-chosen key and returns a presigned PUT valid for 5 minutes. The
 * client PUTs the bytes straight to storage. `finalize*` accepts only a key issued here
 * for the same purpose (and course), asks storage what arrived, and records it — size
 * and type as storage reports them, never as the client said.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Schedule } from "effect"
import type { Course, CourseId, CourseNotFound } from "./Course.ts"
import { CourseRepo } from "./CourseRepo.ts"
import { FileUrl } from "./FileUrl.ts"
import { MediaRepo } from "./MediaRepo.ts"
import { ObjectStore, type StorageError } from "./ObjectStore.ts"
import type { PersistenceError } from "./PersistenceError.ts"
import {
  allowedContentTypes,
  baseNameOf,
  defaultUploadLimits,
  extensionOf,
  type FinalizeUploadRequest,
  FileTooLarge,
  keyFor,
  keyPrefixes,
  maxBytesOf,
  type MediaFile,
  type MediaFileRecord,
  type MediaPage,
  type MediaPageRequest,
  type MediaUploadUrlRequest,
  UnsupportedFileType,
  type UploadIntent,
  UploadExpired,
  type UploadLimits,
  UploadNotFound,
  UploadNotReceived,
  type UploadPurpose,
  type UploadUrlRequest,
  type UploadUrlResponse,
  uploadUrlValiditySeconds
} from "./Upload.ts"
import { UploadRepo } from "./UploadRepo.ts"

/** How uploads behave; every field has a default. */
export interface UploadsOptions {
  readonly limits?: UploadLimits | undefined
  /**
   * How long after its expiry an intent that was never finalized is kept (and its object
   * with it). A PUT may start just before expiry and land later; finalize still works
   * until the grace period ends. Default: 1 hour.
   */
  readonly gracePeriod?: Duration.Duration | undefined
  /** New keys' uuids (tests pin them). Default: `crypto.randomUUID`. */
  readonly uuid?: (() => string) | undefined
}

/** What one sweep did. */
export interface SweepReport {
  /** Abandoned intents removed, with their objects. */
  readonly abandoned: number
  /** Abandoned intents whose file turned out to be recorded (finalize had not marked them). */
  readonly adopted: number
  /** Objects under the service's prefixes with no record and no pending intent, deleted. */
  readonly orphans: number
  /** What uploads that never completed left in the store (temporary files), removed. */
  readonly incomplete: number
}

/**
 * How much longer than the grace period the sweep waits before it treats an upload as
 * abandoned. Finalize refuses at the end of the grace period by its own clock; the margin
 * covers clock skew between instances and a finalize still running at that moment, so
 * the sweep never deletes an object a finalize is about to record.
 */
export const sweepMargin: Duration.Duration = Duration.minutes(5)

type UploadUrlError = FileTooLarge | UnsupportedFileType | PersistenceError | StorageError
type FinalizeError =
  | UploadNotFound
  | UploadNotReceived
  | UploadExpired
  | FileTooLarge
  | UnsupportedFileType
  | PersistenceError
  | StorageError

export class Uploads extends Context.Service<Uploads, {
  courseThumbnailUploadUrl(
    courseId: CourseId,
    request: UploadUrlRequest
  ): Effect.Effect<UploadUrlResponse, CourseNotFound | UploadUrlError>
  finalizeCourseThumbnail(
    courseId: CourseId,
    request: FinalizeUploadRequest
  ): Effect.Effect<Course, CourseNotFound | FinalizeError>
  mediaUploadUrl(request: MediaUploadUrlRequest): Effect.Effect<UploadUrlResponse, UploadUrlError>
  finalizeMedia(request: FinalizeUploadRequest): Effect.Effect<MediaFile, FinalizeError>
  listMedia(request: MediaPageRequest): Effect.Effect<MediaPage, PersistenceError>
  /** One pass of the sweep; safe to run on several instances at once. */
  readonly sweep: Effect.Effect<SweepReport, PersistenceError | StorageError>
}>()("@coursekit/core/Uploads") {
  static readonly layerNoDeps = (
    options: UploadsOptions = {}
  ): Layer.Layer<Uploads, never, CourseRepo | UploadRepo | MediaRepo | ObjectStore | FileUrl> =>
    Layer.effect(
      Uploads,
      Effect.gen(function*() {
        const courses = yield* CourseRepo
        const intents = yield* UploadRepo
        const media = yield* MediaRepo
        const store = yield* ObjectStore
        const files = yield* FileUrl
        const limits = options.limits ?? defaultUploadLimits
        const grace = options.gracePeriod ?? Duration.hours(1)
        const uuid = options.uuid ?? (() => globalThis.crypto.randomUUID())
        const validity = Duration.seconds(uploadUrlValiditySeconds)

        const toMediaFile = (record: MediaFileRecord): MediaFile => ({
          id: record.id,
          url: files.publicUrl(record.key),
          file_key: record.key,
          name: record.name,
          size_bytes: record.size_bytes,
          content_type: record.content_type
        })

        /** Checks the declared type and size, records the intent, signs the PUT. */
        const issue = Effect.fn("Uploads.issue")(function*(
          purpose: UploadPurpose,
          courseId: CourseId | null,
          fileName: string,
          contentType: string,
          sizeBytes: number | undefined
        ) {
          const allowed = allowedContentTypes(purpose)
          if (!allowed.includes(contentType)) {
            return yield* new UnsupportedFileType({ content_type: contentType, allowed: [...allowed] })
          }
          const maxBytes = maxBytesOf(limits, purpose)
          if (sizeBytes !== undefined && sizeBytes > maxBytes) {
            return yield* new FileTooLarge({ size_bytes: sizeBytes, max_bytes: maxBytes })
          }
          const key = keyFor(purpose, courseId, uuid(), extensionOf(contentType))
          const presigned = yield* store.presignPut({
            key,
            contentType,
            contentLength: sizeBytes,
            maxLength: maxBytes,
            expiresIn: validity
          })
          // Recorded before the URL is handed out, so every object that can land has an intent.
          yield* intents.create({
            key,
            purpose,
            course_id: courseId,
            file_name: fileName,
            content_type: contentType,
            size_bytes: sizeBytes ?? null,
            expires_at: presigned.expiresAt
          })
          const response: UploadUrlResponse = {
            upload_url: presigned.url,
            file_key: key,
            expires_at: presigned.expiresAt,
            headers: presigned.headers
          }
          return response
        })

        /** Finds the intent, asks storage what arrived, checks it and records it. */
        const confirm = Effect.fn("Uploads.confirm")(function*(
          purpose: UploadPurpose,
          courseId: CourseId | null,
          key: string
        ) {
          const intent: UploadIntent | undefined = Option.getOrUndefined(yield* intents.find(key))
          if (intent === undefined || intent.purpose !== purpose || intent.course_id !== courseId) {
            return yield* new UploadNotFound({ file_key: key })
          }
          const now = yield* DateTime.now
          const expired = DateTime.isGreaterThanOrEqualTo(now, intent.expires_at)
          // Past the grace period the sweep may delete the object at any moment.
          if (intent.finalized_at === null && DateTime.isGreaterThanOrEqualTo(now, DateTime.addDuration(intent.expires_at, grace))) {
            return yield* new UploadExpired({ file_key: key })
          }
          const info = yield* store.head(key)
          if (Option.isNone(info)) {
            return yield* expired ? new UploadExpired({ file_key: key }) : new UploadNotReceived({ file_key: key })
          }
          const maxBytes = maxBytesOf(limits, purpose)
          if (info.value.size > maxBytes) {
            yield* store.delete(key)
            return yield* new FileTooLarge({ size_bytes: info.value.size, max_bytes: maxBytes })
          }
          const contentType = info.value.contentType ?? "application/octet-stream"
          const allowed = allowedContentTypes(purpose)
          if (!allowed.includes(contentType) || contentType !== intent.content_type) {
            yield* store.delete(key)
            return yield* new UnsupportedFileType({ content_type: contentType, allowed: [...allowed] })
          }
          // The media record is the truth the sweep goes by: it is written first.
          const record = yield* media.upsert({
            key,
            name: baseNameOf(intent.file_name),
            size_bytes: info.value.size,
            content_type: contentType
          })
          return record
        })

        const courseThumbnailUploadUrl = Effect.fn("Uploads.courseThumbnailUploadUrl")(function*(
          courseId: CourseId,
          request: UploadUrlRequest
        ) {
          yield* courses.findById(courseId)
          return yield* issue("thumbnail", courseId, request.file_name, request.content_type, request.size_bytes)
        })

        const finalizeCourseThumbnail = Effect.fn("Uploads.finalizeCourseThumbnail")(function*(
          courseId: CourseId,
          request: FinalizeUploadRequest
        ) {
          yield* courses.findById(courseId)
          yield* confirm("thumbnail", courseId, request.file_key)
          const record = yield* courses.update(courseId, { thumbnail_key: request.file_key })
          yield* intents.markFinalized(request.file_key)
          const course: Course = { ...record, thumbnail_url: files.publicUrl(request.file_key) }
          return course
        })

        const mediaUploadUrl = Effect.fn("Uploads.mediaUploadUrl")(function*(request: MediaUploadUrlRequest) {
          return yield* issue("media", null, request.filename, request.type, request.size_bytes)
        })

        const finalizeMedia = Effect.fn("Uploads.finalizeMedia")(function*(request: FinalizeUploadRequest) {
          const record = yield* confirm("media", null, request.file_key)
          yield* intents.markFinalized(request.file_key)
          return toMediaFile(record)
        })

        const listMedia = Effect.fn("Uploads.listMedia")(function*(request: MediaPageRequest) {
          // One row past the page tells whether a next page exists, and where it starts.
          const rows = yield* media.list({ cursor: request.cursor, limit: request.limit + 1 })
          const page: MediaPage = {
            items: rows.slice(0, request.limit).map(toMediaFile),
            next: rows.length > request.limit ? rows[request.limit]!.id : undefined
          }
          return page
        })

        const sweep = Effect.gen(function*() {
          const now = yield* DateTime.now
          const cutoff = DateTime.subtractDuration(now, Duration.sum(grace, sweepMargin))
          let abandoned = 0
          let adopted = 0
          let orphans = 0
          // Intents never finalized, expired more than the grace period (and the margin) ago.
          while (true) {
            const batch = yield* intents.listAbandoned(cutoff, 200)
            if (batch.length === 0) break
            const recorded = yield* media.existing(batch.map((intent) => intent.key))
            for (const intent of batch) {
              if (recorded.has(intent.key)) {
                yield* intents.markFinalized(intent.key)
                adopted++
              } else {
                yield* store.delete(intent.key)
                yield* intents.delete(intent.key)
                abandoned++
              }
            }
            if (batch.length < 200) break
          }
          // Objects under the service's prefixes that nothing accounts for: no record and no
          // intent that may still be finalized. Younger objects wait for a later pass.
          for (const prefix of keyPrefixes) {
            let after: string | undefined
            do {
              const page = yield* store.list(prefix, { after, limit: 500 })
              after = page.next
              const old = page.objects.filter((object) => DateTime.isLessThan(object.lastModified, cutoff))
              if (old.length === 0) continue
              const keys = old.map((object) => object.key)
              const recorded = yield* media.existing(keys)
              const pending = new Set(
                (yield* intents.findMany(keys))
                  .filter((intent) => intent.finalized_at === null && !DateTime.isLessThan(intent.expires_at, cutoff))
                  .map((intent) => intent.key)
              )
              for (const key of keys) {
                if (recorded.has(key) || pending.has(key)) continue
                yield* store.delete(key)
                yield* intents.delete(key)
                orphans++
              }
            } while (after !== undefined)
          }
          // Partial uploads nothing has written to for as long: their PUT is long over.
          const incomplete = yield* store.removeIncomplete(cutoff)
          const report: SweepReport = { abandoned, adopted, orphans, incomplete }
          return report
        }).pipe(Effect.withSpan("Uploads.sweep"))

        return Uploads.of({
          courseThumbnailUploadUrl,
          finalizeCourseThumbnail,
          mediaUploadUrl,
          finalizeMedia,
          listMedia,
          sweep
        })
      })
    )

  /**
   * Runs the sweep every `interval` for as long as the layer lives; a failed pass is
   * logged and the next one runs on schedule.
   */
  static readonly layerSweeper = (interval: Duration.Duration): Layer.Layer<never, never, Uploads> =>
    Layer.effectDiscard(
      Effect.gen(function*() {
        const uploads = yield* Uploads
        yield* uploads.sweep.pipe(
          Effect.tap((report) =>
            report.abandoned + report.adopted + report.orphans + report.incomplete > 0
              ? Effect.logInfo("upload sweep", report)
              : Effect.void
          ),
          Effect.catchCause((cause) => Effect.logWarning("upload sweep failed; the next pass will retry", cause)),
          Effect.repeat(Schedule.spaced(interval)),
          Effect.forkScoped
        )
      })
    )
}
