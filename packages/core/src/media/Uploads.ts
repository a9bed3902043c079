/**
 * The upload use cases: both flows of the specification — a course thumbnail (§4.3) and
 * the admin media library (§4.4). What is never finalized is removed by `UploadSweep`.
 *
 * An upload is three steps. `*UploadUrl` checks the declared type and size, records an
 * intent for a server-chosen key and returns a presigned PUT valid for 5 minutes. The
 * client PUTs the bytes straight to storage. `finalize*` accepts only a key issued here
 * for the same purpose (and course), asks storage what arrived, and records it — size
 * and type as storage reports them, never as the client said.
 *
 * @since 0.1.0
 */
import { type Edit, systemEdit } from "../editing/Edit.ts"
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import type { Course, CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { FileUrl } from "./FileUrl.ts"
import { LessonRepo } from "../lessons/LessonRepo.ts"
import { MediaRepo } from "./MediaRepo.ts"
import { MediaUrls } from "./MediaUrls.ts"
import {
  firstPartOutOfOrder,
  MultipartCompleted,
  type MultipartCompleteRequest,
  type MultipartCreateRequest,
  MultipartNotFound,
  type MultipartStatus,
  type MultipartUpload,
  multipartValidityHours,
  partCountFor,
  partLength,
  PartOutOfRange,
  PartRejected,
  partSizeFor,
  type PartUrl,
  type PartUrls,
  type PartUrlsRequest
} from "./Multipart.ts"
import { ObjectStore, type StorageError } from "./ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import {
  allowedContentTypes,
  baseNameOf,
  defaultGracePeriod,
  defaultUploadLimits,
  extensionOf,
  type FinalizeUploadRequest,
  FileTooLarge,
  keyFor,
  maxBytesOf,
  type LessonUsingFile,
  type MediaFile,
  MediaInUse,
  type MediaListItem,
  MediaNotFound,
  type MediaVisibility,
  visibilityOf,
  type MediaFileRecord,
  type MediaPage,
  type MediaPageRequest,
  type MediaUses,
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
   * until the grace period ends. Default: {@link defaultGracePeriod}. `UploadSweep` must be given the same.
   */
  readonly gracePeriod?: Duration.Duration | undefined
  /** New keys' uuids (tests pin them). Default: `crypto.randomUUID`. */
  readonly uuid?: (() => string) | undefined
}

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
  /** `edit.author` is the author of the revision the new thumbnail stores (its precondition is not used). */
  finalizeCourseThumbnail(
    courseId: CourseId,
    request: FinalizeUploadRequest,
    edit?: Edit
  ): Effect.Effect<Course, CourseNotFound | FinalizeError>
  mediaUploadUrl(request: MediaUploadUrlRequest): Effect.Effect<UploadUrlResponse, UploadUrlError>
  finalizeMedia(request: FinalizeUploadRequest): Effect.Effect<MediaFile, FinalizeError>
  listMedia(request: MediaPageRequest): Effect.Effect<MediaPage, PersistenceError | StorageError>
  /**
   * Removes a media file: its record, then its object. Refused with `MediaInUse` while a
   * lesson's video or a course's thumbnail is the file. Should the object's removal fail,
   * the record is gone already and the upload sweep removes the object on a later pass.
   */
  deleteMedia(fileKey: string): Effect.Effect<void, MediaNotFound | MediaInUse | PersistenceError>
  /**
   * Multipart uploads of large media files (see `Multipart`): start one (the service picks
   * the part size), sign part PUTs as the client goes, tell what the store holds (to
   * resume), complete it into a media file (the same answer as `finalizeMedia`; again,
   * the same record), or abort it. From `expires_at` on, part URLs and status fail with
   * `UploadExpired`; completion does from the end of the grace period after it.
   */
  startMultipart(request: MultipartCreateRequest): Effect.Effect<MultipartUpload, UploadUrlError>
  multipartPartUrls(
    uploadId: string,
    request: PartUrlsRequest
  ): Effect.Effect<PartUrls, MultipartNotFound | MultipartCompleted | UploadExpired | PartOutOfRange | PersistenceError | StorageError>
  multipartStatus(
    uploadId: string
  ): Effect.Effect<MultipartStatus, MultipartNotFound | MultipartCompleted | UploadExpired | PersistenceError | StorageError>
  completeMultipart(
    uploadId: string,
    request: MultipartCompleteRequest
  ): Effect.Effect<MediaFile, MultipartNotFound | PartRejected | PartOutOfRange | FinalizeError>
  abortMultipart(uploadId: string): Effect.Effect<void, MultipartNotFound | MultipartCompleted | PersistenceError | StorageError>
}>()("@coursekit/core/Uploads") {
  static readonly layerNoDeps = (
    options: UploadsOptions = {}
  ): Layer.Layer<Uploads, never, CourseRepo | UploadRepo | MediaRepo | LessonRepo | ObjectStore | FileUrl | MediaUrls> =>
    Layer.effect(
      Uploads,
      Effect.gen(function*() {
        const courses = yield* CourseRepo
        const intents = yield* UploadRepo
        const media = yield* MediaRepo
        const lessons = yield* LessonRepo
        const store = yield* ObjectStore
        const files = yield* FileUrl
        const urls = yield* MediaUrls
        const limits = options.limits ?? defaultUploadLimits
        const grace = options.gracePeriod ?? defaultGracePeriod
        const uuid = options.uuid ?? (() => globalThis.crypto.randomUUID())
        const validity = Duration.seconds(uploadUrlValiditySeconds)

        const toMediaFile = (record: MediaFileRecord) =>
          Effect.map(urls.urlOf(record.key), (readable): MediaFile => ({
            id: record.id,
            url: readable.url,
            url_expires_at: readable.expiresAt,
            file_key: record.key,
            visibility: visibilityOf(record.key),
            name: record.name,
            size_bytes: record.size_bytes,
            content_type: record.content_type
          }))

        /** Checks the declared type and size, records the intent, signs the PUT. */
        const issue = Effect.fn("Uploads.issue")(function*(
          purpose: UploadPurpose,
          courseId: CourseId | null,
          fileName: string,
          contentType: string,
          sizeBytes: number | undefined,
          visibility?: MediaVisibility
        ) {
          const allowed = allowedContentTypes(purpose)
          if (!allowed.includes(contentType)) {
            return yield* new UnsupportedFileType({ content_type: contentType, allowed: [...allowed] })
          }
          const maxBytes = maxBytesOf(limits, purpose)
          if (sizeBytes !== undefined && sizeBytes > maxBytes) {
            // A media file too large for one PUT may still go up in parts.
            return yield* purpose === "media" && sizeBytes <= limits.mediaMaxBytes
              ? new FileTooLarge({ size_bytes: sizeBytes, max_bytes: maxBytes, multipart_max_bytes: limits.mediaMaxBytes })
              : new FileTooLarge({ size_bytes: sizeBytes, max_bytes: maxBytes })
          }
          const key = keyFor(purpose, courseId, uuid(), extensionOf(contentType), visibility)
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
            expires_at: presigned.expiresAt,
            upload_id: null,
            store_upload_id: null,
            part_size: null
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
            // Deleted meanwhile (the delete removes the intent, then the object): not "PUT it first".
            if (intent.finalized_at !== null && Option.isNone(yield* intents.find(key))) {
              return yield* new UploadNotFound({ file_key: key })
            }
            return yield* expired ? new UploadExpired({ file_key: key }) : new UploadNotReceived({ file_key: key })
          }
          const contentType = info.value.contentType ?? "application/octet-stream"
          // Checked once, when first finalized. Finalized already, the file is recorded and
          // may be in use: a retry answers its record, and a limit lowered since never
          // deletes it.
          if (intent.finalized_at === null) {
            // A multipart upload's file may be as large as media files go; one PUT's, as one PUT takes.
            const maxBytes = intent.upload_id === null ? maxBytesOf(limits, purpose) : limits.mediaMaxBytes
            if (info.value.size > maxBytes) {
              yield* store.delete(key)
              return yield* new FileTooLarge({ size_bytes: info.value.size, max_bytes: maxBytes })
            }
            const allowed = allowedContentTypes(purpose)
            if (!allowed.includes(contentType) || contentType !== intent.content_type) {
              yield* store.delete(key)
              return yield* new UnsupportedFileType({ content_type: contentType, allowed: [...allowed] })
            }
          }
          // The media record is the truth the sweep goes by: it is written first.
          const record = yield* media.upsert({
            key,
            name: baseNameOf(intent.file_name),
            size_bytes: info.value.size,
            content_type: contentType
          })
          // A delete of the file may have run meanwhile: it removes the intent before the
          // record, so an intent still here means the delete (if any) removes this record
          // after us. Gone: take the record back, the file is being deleted.
          if (Option.isNone(yield* intents.find(key))) {
            yield* media.delete(key)
            return yield* new UploadNotFound({ file_key: key })
          }
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
          request: FinalizeUploadRequest,
          edit: Edit = systemEdit
        ) {
          yield* courses.findById(courseId)
          yield* confirm("thumbnail", courseId, request.file_key)
          // No precondition: the thumbnail is set whatever else changed, so no StaleRecord.
          const record = yield* courses.update(courseId, { thumbnail_key: request.file_key }, { author: edit.author }).pipe(
            Effect.catchTag("StaleRecord", (stale) => Effect.die(stale))
          )
          yield* intents.markFinalized(request.file_key)
          const course: Course = { ...record, thumbnail_url: files.publicUrl(request.file_key) }
          return course
        })

        const mediaUploadUrl = Effect.fn("Uploads.mediaUploadUrl")(function*(request: MediaUploadUrlRequest) {
          return yield* issue("media", null, request.filename, request.type, request.size_bytes, request.visibility)
        })

        const finalizeMedia = Effect.fn("Uploads.finalizeMedia")(function*(request: FinalizeUploadRequest) {
          const record = yield* confirm("media", null, request.file_key)
          yield* intents.markFinalized(request.file_key)
          return yield* toMediaFile(record)
        })

        // --- multipart ----------------------------------------------------------------

        /** The open multipart upload `uploadId`: its intent and part plan. */
        const openMultipart = Effect.fn("Uploads.openMultipart")(function*(uploadId: string) {
          const intent = Option.getOrUndefined(yield* intents.findByUploadId(uploadId))
          if (intent === undefined || intent.store_upload_id === null || intent.part_size === null || intent.size_bytes === null) {
            return yield* new MultipartNotFound({ upload_id: uploadId })
          }
          if (intent.finalized_at !== null) return yield* new MultipartCompleted({ upload_id: uploadId, file_key: intent.key })
          const partSize = intent.part_size
          const sizeBytes = intent.size_bytes
          return {
            intent,
            storeUploadId: intent.store_upload_id,
            partSize,
            sizeBytes,
            partCount: partCountFor(sizeBytes, partSize)
          }
        })

        const startMultipart = Effect.fn("Uploads.startMultipart")(function*(request: MultipartCreateRequest) {
          const allowed = allowedContentTypes("media")
          if (!allowed.includes(request.type)) {
            return yield* new UnsupportedFileType({ content_type: request.type, allowed: [...allowed] })
          }
          if (request.size_bytes > limits.mediaMaxBytes) {
            return yield* new FileTooLarge({ size_bytes: request.size_bytes, max_bytes: limits.mediaMaxBytes })
          }
          const key = keyFor("media", null, uuid(), extensionOf(request.type), request.visibility)
          const partSize = partSizeFor(request.size_bytes)
          const storeUploadId = yield* store.createMultipart({ key, contentType: request.type, partSize })
          const expiresAt = DateTime.addDuration(yield* DateTime.now, Duration.hours(multipartValidityHours))
          const uploadId = globalThis.crypto.randomUUID()
          // Should this fail, the store's upload is nobody's: removeIncomplete takes it.
          yield* intents.create({
            key,
            purpose: "media",
            course_id: null,
            file_name: request.filename,
            content_type: request.type,
            size_bytes: request.size_bytes,
            expires_at: expiresAt,
            upload_id: uploadId,
            store_upload_id: storeUploadId,
            part_size: partSize
          })
          const created: MultipartUpload = {
            upload_id: uploadId,
            file_key: key,
            part_size: partSize,
            part_count: partCountFor(request.size_bytes, partSize),
            expires_at: expiresAt
          }
          return created
        })

        /**
         * `UploadExpired` once the open upload's `expires_at` is reached: no part URL is
         * signed, and status says so too, so that a resuming client starts anew rather
         * than PUT parts it can no longer get URLs for.
         */
        const checkOpen = (open: { readonly intent: UploadIntent }) =>
          Effect.flatMap(DateTime.now, (now) =>
            DateTime.isGreaterThanOrEqualTo(now, open.intent.expires_at)
              ? Effect.fail(new UploadExpired({ file_key: open.intent.key }))
              : Effect.void)

        const multipartPartUrls = Effect.fn("Uploads.multipartPartUrls")(function*(uploadId: string, request: PartUrlsRequest) {
          const open = yield* openMultipart(uploadId)
          yield* checkOpen(open)
          const outside = request.part_numbers.find((partNumber) => partNumber > open.partCount)
          if (outside !== undefined) return yield* new PartOutOfRange({ part_number: outside, part_count: open.partCount, field: "part_numbers" })
          const parts = yield* Effect.forEach(request.part_numbers, (partNumber) =>
            Effect.map(
              store.presignPart({
                key: open.intent.key,
                uploadId: open.storeUploadId,
                partNumber,
                contentLength: partLength(open.sizeBytes, open.partSize, partNumber),
                expiresIn: validity
              }),
              (signed): PartUrl => ({ part_number: partNumber, upload_url: signed.url, headers: signed.headers, expires_at: signed.expiresAt })
            ))
          const answer: PartUrls = { parts }
          return answer
        })

        const multipartStatus = Effect.fn("Uploads.multipartStatus")(function*(uploadId: string) {
          const open = yield* openMultipart(uploadId)
          yield* checkOpen(open)
          const held = yield* store.listParts(open.intent.key, open.storeUploadId)
          if (Option.isNone(held)) return yield* new MultipartNotFound({ upload_id: uploadId })
          const status: MultipartStatus = {
            upload_id: uploadId,
            file_key: open.intent.key,
            part_size: open.partSize,
            part_count: open.partCount,
            parts: held.value.map((part) => ({ part_number: part.partNumber, size_bytes: part.size, etag: part.etag }))
          }
          return status
        })

        const completeMultipart = Effect.fn("Uploads.completeMultipart")(function*(uploadId: string, request: MultipartCompleteRequest) {
          // Completed before (or by a concurrent call): the same answer.
          const open = yield* openMultipart(uploadId).pipe(Effect.catchTag("MultipartCompleted", Effect.succeed))
          if (open instanceof MultipartCompleted) return yield* finalizeMedia({ file_key: open.file_key })
          // Refused where `confirm` would refuse the assembled object (parts PUT just before
          // expiry may still be completed until the grace period ends), but before the store
          // assembles it: no object that no record will ever own.
          if (DateTime.isGreaterThanOrEqualTo(yield* DateTime.now, DateTime.addDuration(open.intent.expires_at, grace))) {
            return yield* new UploadExpired({ file_key: open.intent.key })
          }
          // Every part, once, in order: 1…part_count. Out of order is said so (the request's
          // schema says it first); in order, the first number that skips one names a part missing.
          const unordered = firstPartOutOfOrder(request.parts)
          if (unordered !== undefined) {
            return yield* new PartRejected({ reason: "not_in_order", part_number: request.parts[unordered]!.part_number })
          }
          const skipped = request.parts.findIndex((part, index) => part.part_number !== index + 1)
          if (skipped !== -1) return yield* new PartRejected({ reason: "missing_or_wrong_etag", part_number: skipped + 1 })
          if (request.parts.length < open.partCount) {
            return yield* new PartRejected({ reason: "missing_or_wrong_etag", part_number: request.parts.length + 1 })
          }
          if (request.parts.length > open.partCount) {
            return yield* new PartOutOfRange({ part_number: request.parts.length, part_count: open.partCount, field: "parts" })
          }
          const parts = request.parts.map((part) => ({ partNumber: part.part_number, etag: part.etag }))
          yield* store.completeMultipart(open.intent.key, open.storeUploadId, parts).pipe(
            Effect.catchTag("MultipartRefused", (refused) =>
              Effect.gen(function*() {
                if (refused.reason === "NoSuchUpload") {
                  // Completed meanwhile by another call (the object is there), or aborted.
                  if (Option.isSome(yield* store.head(open.intent.key))) return
                  return yield* new MultipartNotFound({ upload_id: uploadId })
                }
                return yield* new PartRejected({
                  reason: refused.reason === "EntityTooSmall" ? "too_small" : "missing_or_wrong_etag",
                  part_number: refused.partNumber ?? null
                })
              }))
          )
          return yield* finalizeMedia({ file_key: open.intent.key })
        })

        const abortMultipart = Effect.fn("Uploads.abortMultipart")(function*(uploadId: string) {
          const open = yield* openMultipart(uploadId)
          yield* store.abortMultipart(open.intent.key, open.storeUploadId)
          yield* intents.delete(open.intent.key)
        })

        /**
         * What uses each of `keys` (every key answered, unused ones too): two reads
         * whatever the number of keys, so a page of the library costs no read per file.
         */
        const usesOf = Effect.fnUntraced(function*(keys: ReadonlyArray<string>) {
          const [videos, thumbnails] = yield* Effect.all([lessons.usingVideos(keys), courses.thumbnailsAmong(keys)])
          const uses = new Map<string, { lessons: Array<LessonUsingFile>; thumbnail_of: CourseId | null }>(
            keys.map((key) => [key, { lessons: [], thumbnail_of: null }])
          )
          for (const { video_key, ...lesson } of videos) uses.get(video_key)?.lessons.push(lesson)
          for (const { course_id, thumbnail_key } of thumbnails) {
            const use = uses.get(thumbnail_key)
            // Rows come by ascending id: the first course wins should two share one key.
            if (use !== undefined && use.thumbnail_of === null) use.thumbnail_of = course_id
          }
          const answer: ReadonlyMap<string, MediaUses> = uses
          return answer
        })

        const listMedia = Effect.fn("Uploads.listMedia")(function*(request: MediaPageRequest) {
          // One row past the page tells whether a next page exists, and where it starts.
          const rows = yield* media.list({ ...request, limit: request.limit + 1 })
          const shown = rows.slice(0, request.limit)
          const uses = yield* usesOf(shown.map((row) => row.key))
          const page: MediaPage = {
            items: yield* Effect.forEach(shown, (record) =>
              Effect.map(toMediaFile(record), (file): MediaListItem => ({ ...file, used_by: uses.get(record.key)! }))),
            next: rows.length > request.limit ? rows[request.limit]!.id : undefined
          }
          return page
        })

        /** `MediaInUse` when something uses `key`, naming what (as the library lists it). */
        const checkUnused = (fileKey: string) =>
          Effect.gen(function*() {
            const uses = (yield* usesOf([fileKey])).get(fileKey)!
            if (uses.lessons.length > 0 || uses.thumbnail_of !== null) {
              return yield* new MediaInUse({ file_key: fileKey, ...uses })
            }
          })

        const deleteMedia = Effect.fn("Uploads.deleteMedia")(function*(fileKey: string) {
          if (Option.isNone(yield* media.findByKey(fileKey))) return yield* new MediaNotFound({ file_key: fileKey })
          yield* checkUnused(fileKey)
          // The intent first: a finalize of the same key running meanwhile then takes its
          // record back (see `confirm`) instead of recording a file about to lose its object.
          yield* intents.delete(fileKey)
          // Then the record, the truth. A lesson that took the file meanwhile keeps it (the
          // file stays, finalized; finalizing it again answers 404).
          const deleted = yield* media.delete(fileKey)
          if (deleted === "in-use") {
            yield* checkUnused(fileKey)
            // Used when deleting, no longer when asked: the caller may simply retry.
            return yield* new MediaInUse({ file_key: fileKey, lessons: [], thumbnail_of: null })
          }
          // "absent": a concurrent delete, or a finalize taking its record back, removed it
          // first; the file is being deleted all the same, so its object goes too.
          // The file is deleted once its record is. Its object is no record's any more: should
          // removing it fail, the sweep removes it on a later pass.
          yield* store.delete(fileKey).pipe(
            Effect.catchTag("StorageError", (error) =>
              Effect.logWarning("a deleted media file's object stays until the upload sweep removes it", fileKey, error.cause))
          )
        })

        return Uploads.of({
          courseThumbnailUploadUrl,
          finalizeCourseThumbnail,
          mediaUploadUrl,
          finalizeMedia,
          listMedia,
          deleteMedia,
          startMultipart,
          multipartPartUrls,
          multipartStatus,
          completeMultipart,
          abortMultipart
        })
      })
    )
}
