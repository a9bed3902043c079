/**
 * Uploads: what a client asks for, what the service records, and the rules both flows
 * (a course thumbnail, §4.3; the admin media library, §4.4) follow. Files go straight
 * from the client to object storage; the service issues keys, signs PUTs and, on
 * finalize, believes only what the store reports.
 *
 * @since 0.1.0
 */
import { Duration, Schema, SchemaGetter } from "effect"
import { CourseId } from "../catalogue/Course.ts"
import { isPrivateKey, privateKeyPrefix } from "./ObjectStore.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import { storableText } from "../shared/StorableText.ts"

/** Longest presigned PUT validity: the specification's 5 minutes. */
export const uploadUrlValiditySeconds = 300

/**
 * How long after its expiry an upload that was never finalized is kept (and its object
 * with it): a PUT may start just before expiry and land later.
 */
export const defaultGracePeriod: Duration.Duration = Duration.hours(1)

/** What an upload is for: it decides the key, the allowed types and the size limit. */
export const UploadPurpose = Schema.Literals(["thumbnail", "media"])
export type UploadPurpose = typeof UploadPurpose.Type

/** Image types a thumbnail may have. SVG is never allowed: it can carry script. */
export const thumbnailContentTypes = ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"] as const
/** Types a media file may have: the thumbnail images plus video. */
export const mediaContentTypes = [...thumbnailContentTypes, "video/mp4", "video/webm", "video/quicktime"] as const

/** The allowed types of `purpose`. */
export const allowedContentTypes = (purpose: UploadPurpose): ReadonlyArray<string> =>
  purpose === "thumbnail" ? thumbnailContentTypes : mediaContentTypes

/** Size limits per purpose, in bytes. */
export interface UploadLimits {
  readonly thumbnailMaxBytes: number
  /** The largest media file, uploaded in parts (multipart). */
  readonly mediaMaxBytes: number
  /**
   * The largest file of one PUT (a thumbnail, or a media file not in parts). Default
   * {@link defaultSinglePutMaxBytes}, which every supported store takes in one PUT.
   */
  readonly singlePutMaxBytes?: number | undefined
}

/** 5 GiB − 5 MiB: the most one PUT carries on Cloudflare R2 (AWS S3 takes 5 GiB). */
export const defaultSinglePutMaxBytes = 5 * 1024 * 1024 * 1024 - 5 * 1024 * 1024

/** 10 MiB thumbnails, 50 GiB media files (in parts; one PUT at most 5 GiB − 5 MiB). */
export const defaultUploadLimits: UploadLimits = {
  thumbnailMaxBytes: 10 * 1024 * 1024,
  mediaMaxBytes: 50 * 1024 * 1024 * 1024,
  singlePutMaxBytes: defaultSinglePutMaxBytes
}

/** The largest file of one PUT for `purpose`. */
export const maxBytesOf = (limits: UploadLimits, purpose: UploadPurpose): number =>
  Math.min(purpose === "thumbnail" ? limits.thumbnailMaxBytes : limits.mediaMaxBytes, limits.singlePutMaxBytes ?? defaultSinglePutMaxBytes)

/** The one extension of each allowed type. */
const extensionOfType: Readonly<Record<(typeof mediaContentTypes)[number], string>> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "avif",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov"
}

/**
 * The key's extension: always the content type's, never the file name's. A CDN or static
 * server that types files by extension then serves the bytes as the type they were
 * checked as (`evil.html` sent as `image/png` is stored as `….png`). Nothing of the file
 * name ever enters a key.
 */
export const extensionOf = (contentType: string): string =>
  (extensionOfType as Readonly<Record<string, string>>)[contentType] ?? "bin"

/** The name kept for a file: its last path segment, so `../../x.png` is kept as `x.png`. */
export const baseNameOf = (fileName: string): string => {
  const segments = fileName.split(/[/\\]/)
  const last = segments[segments.length - 1]!.trim()
  return last === "" || last === "." || last === ".." ? "file" : last
}

/**
 * Who may read a media file. `public`: anyone, at its permanent URL. `private`: only
 * through signed URLs the service hands out for a while (`MediaUrls`); the object lives
 * under the store's private prefix, which no bucket policy or CDN exposes.
 */
export const MediaVisibility = Schema.Literals(["public", "private"]).annotate({
  description: "public: anyone may read the file at its permanent URL. private: only through signed URLs that " +
    "expire (url_expires_at), for paid lesson videos."
})
export type MediaVisibility = typeof MediaVisibility.Type

/** A key's visibility: the key prefix says it, so the two can never disagree. */
export const visibilityOf = (key: string): MediaVisibility => isPrivateKey(key) ? "private" : "public"

/** `courses/<course_id>/<uuid>.<ext>`, `media/<uuid>.<ext>` or `private/media/<uuid>.<ext>`. */
export const keyFor = (
  purpose: UploadPurpose,
  courseId: CourseId | null,
  uuid: string,
  extension: string,
  visibility: MediaVisibility = "public"
): string =>
  purpose === "thumbnail"
    ? `courses/${courseId}/${uuid}.${extension}`
    : `${visibility === "private" ? privateKeyPrefix : ""}media/${uuid}.${extension}`

/** The key prefixes the service writes under (the sweep reconciles them). */
export const keyPrefixes = ["courses/", "media/", `${privateKeyPrefix}media/`] as const

// --- requests and responses ----------------------------------------------------------

/** A file name as sent by a client: 1..255 characters. */
export const FileName = Schema.String.check(
  Schema.isNonEmpty({ message: "the file name must not be empty" }),
  Schema.isMaxLength(255, { message: "the file name must be at most 255 characters" }),
  storableText("the file name")
).annotate({ description: "Original file name (1–255 characters), kept as the media file's name; nothing of it enters the storage key." })

/** A MIME type: `type/subtype`, lower case. */
export const ContentType = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/, {
    message: "the content type must be a lower-case MIME type such as image/png"
  })
).annotate({ description: "MIME type of the file, lower case, for example image/png." })

/** A declared size in bytes. */
export const SizeBytes = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
  description: "Size of the file in bytes. When given, it is checked against the limit and signed into the URL."
})

/** The specification's UploadUrlRequest (course thumbnail), plus an optional size. */
export const UploadUrlRequest = Schema.Struct({
  file_name: FileName,
  content_type: ContentType,
  size_bytes: Schema.optionalKey(SizeBytes)
}).annotate({ identifier: "UploadUrlRequest" })
export type UploadUrlRequest = typeof UploadUrlRequest.Type

/** The admin media upload request: `filename` and `type`, plus an optional size and visibility. */
export const MediaUploadUrlRequest = Schema.Struct({
  filename: FileName,
  type: ContentType,
  size_bytes: Schema.optionalKey(SizeBytes),
  visibility: Schema.optionalKey(MediaVisibility.annotate({ description: "Default public. Paid lesson videos must be private." }))
}).annotate({ identifier: "MediaUploadUrlRequest" })
export type MediaUploadUrlRequest = typeof MediaUploadUrlRequest.Type

/** A storage key as sent back by a client. */
export const FileKey = Schema.String.check(
  Schema.isNonEmpty({ message: "file_key must not be empty" }),
  Schema.isMaxLength(1024, { message: "file_key must be at most 1024 characters" }),
  storableText("file_key")
).annotate({ description: "The file_key the upload-url call returned." })

/** The specification's FinalizeUploadRequest. */
export const FinalizeUploadRequest = Schema.Struct({ file_key: FileKey }).annotate({ identifier: "FinalizeUploadRequest" })
export type FinalizeUploadRequest = typeof FinalizeUploadRequest.Type

/** Where and how to PUT the file. */
export const UploadUrlResponse = Schema.Struct({
  upload_url: Schema.String.annotate({ description: "Presigned PUT URL, valid for 5 minutes." }),
  file_key: Schema.String.annotate({ description: "Storage key: courses/<course_id>/<uuid>.<ext> or media/<uuid>.<ext>." }),
  expires_at: Schema.DateTimeUtcFromString.annotate({ description: "When the URL stops working." }),
  headers: Schema.Record(Schema.String, Schema.String).annotate({
    description: "Headers the PUT must carry exactly (Content-Type, and Content-Length when size_bytes was given)."
  })
}).annotate({ identifier: "UploadUrlResponse" })
export type UploadUrlResponse = typeof UploadUrlResponse.Type

/**
 * A `bigint` column: node-postgres reads it as a string, other drivers as a number or a
 * `bigint`. Sizes and ids stay far below 2^53.
 */
const BigintColumn = Schema.Union([Schema.Number, Schema.String, Schema.BigInt]).pipe(
  Schema.decodeTo(Schema.Int, { decode: SchemaGetter.transform(Number), encode: SchemaGetter.passthrough({ strict: false }) })
)

/**
 * An upload intent, defined once (see `RecordVariants`): a key the service issued and
 * what it was issued for. Never shown by the API.
 */
export const UploadIntentFields = RecordVariants.Struct({
  key: RecordVariants.Field({ stored: Schema.String, insert: Schema.String }),
  purpose: RecordVariants.Field({ stored: UploadPurpose, insert: UploadPurpose }),
  course_id: RecordVariants.Field({ stored: Schema.NullOr(CourseId), insert: Schema.NullOr(CourseId) }),
  file_name: RecordVariants.Field({ stored: Schema.String, insert: Schema.String }),
  content_type: RecordVariants.Field({ stored: Schema.String, insert: Schema.String }),
  size_bytes: RecordVariants.Field({ stored: Schema.NullOr(BigintColumn), insert: Schema.NullOr(Schema.Int) }),
  expires_at: RecordVariants.Field({ stored: Schema.DateTimeUtcFromDate, insert: Schema.DateTimeUtcFromString }),
  /** A multipart upload's id in the API (null for a single PUT). */
  upload_id: RecordVariants.Field({ stored: Schema.NullOr(Schema.String), insert: Schema.NullOr(Schema.String) }),
  /** The store's id of the multipart upload. */
  store_upload_id: RecordVariants.Field({ stored: Schema.NullOr(Schema.String), insert: Schema.NullOr(Schema.String) }),
  /** The size of every part but the last. */
  part_size: RecordVariants.Field({ stored: Schema.NullOr(BigintColumn), insert: Schema.NullOr(Schema.Int) }),
  created_at: RecordVariants.timestamp([]),
  finalized_at: RecordVariants.Field({ stored: Schema.NullOr(Schema.DateTimeUtcFromDate) })
})

/** What the upload use cases record when they sign a PUT (instants encode as ISO strings). */
export const NewUploadIntent = RecordVariants.extract(UploadIntentFields, "insert")
export type NewUploadIntent = typeof NewUploadIntent.Type

/** A recorded upload intent. */
export const UploadIntent = RecordVariants.extract(UploadIntentFields, "stored")
export type UploadIntent = typeof UploadIntent.Type

/** A media file identifier: a positive integer, ascending in order of first finalize. */
export const MediaFileId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })).pipe(Schema.brand("MediaFileId"))
export type MediaFileId = typeof MediaFileId.Type

/** A media file (§2.8), defined once: the record of a confirmed upload, keyed by storage key. */
export const MediaFileFields = RecordVariants.Struct({
  id: RecordVariants.Field({ stored: BigintColumn.pipe(Schema.decodeTo(MediaFileId)), api: MediaFileId }),
  url: RecordVariants.derived(
    Schema.String.annotate({
      description: "Where to read the file: a public file's permanent URL, or a signed URL of a private file, valid until url_expires_at."
    }),
    ["api"]
  ),
  url_expires_at: RecordVariants.derived(
    Schema.NullOr(Schema.DateTimeUtcFromString).annotate({
      description: "When a private file's signed url stops working (ask again for a new one); null for a public file."
    }),
    ["api"]
  ),
  key: RecordVariants.Field({ stored: Schema.String, insert: Schema.String }),
  file_key: RecordVariants.derived(Schema.String, ["api"]),
  visibility: RecordVariants.derived(MediaVisibility, ["api"]),
  name: RecordVariants.Field({ stored: Schema.String, insert: Schema.String, api: Schema.String }),
  size_bytes: RecordVariants.Field({
    stored: BigintColumn,
    insert: Schema.Int,
    api: Schema.Int.annotate({ description: "Size read from object storage, never taken from the client." })
  }),
  content_type: RecordVariants.Field({
    stored: Schema.String,
    insert: Schema.String,
    api: Schema.String.annotate({ description: "Content type recorded by object storage." })
  }),
  created_at: RecordVariants.timestamp([]),
  updated_at: RecordVariants.timestamp([])
})

/** The stored record of a confirmed upload, keyed by storage key. */
export const MediaFileRecord = RecordVariants.extract(MediaFileFields, "stored")
export type MediaFileRecord = typeof MediaFileRecord.Type

/** What finalize records: the size and type are the store's, never the client's. */
export const ConfirmedFile = RecordVariants.extract(MediaFileFields, "insert")
export type ConfirmedFile = typeof ConfirmedFile.Type

/** A media file as the API shows it. */
export const MediaFile = RecordVariants.extract(MediaFileFields, "api").annotate({ identifier: "MediaFile" })
export type MediaFile = typeof MediaFile.Type

/** A lesson that uses a file: by its course and its id. */
export const LessonUsingFile = Schema.Struct({ course_id: CourseId, lesson_id: Schema.Int })
export type LessonUsingFile = typeof LessonUsingFile.Type

/**
 * What uses a media file: the lessons that play it, by course and id, and the course that
 * shows it as its thumbnail. Deleting the file is refused while anything does
 * (`MediaInUse` names the same), and the library lists it with each file.
 */
export const MediaUses = Schema.Struct({
  lessons: Schema.Array(LessonUsingFile).annotate({
    description: "The lessons whose video the file is, by course and lesson id."
  }),
  thumbnail_of: Schema.NullOr(CourseId).annotate({ description: "The course showing the file as its thumbnail; null when none." })
}).annotate({
  identifier: "MediaUses",
  description: "What uses a media file now. Deleting the file is refused (409) while anything does, naming the same."
})
export type MediaUses = typeof MediaUses.Type

/**
 * A media file as the library lists it: with what uses it, so a list can show that
 * without asking per file. Only the list has it: finalize answers a file just recorded,
 * which nothing uses yet.
 */
export const MediaListItem = Schema.Struct({
  ...MediaFile.fields,
  used_by: MediaUses
}).annotate({ identifier: "MediaListItem" })
export type MediaListItem = typeof MediaListItem.Type

/** A media file's kind: the top-level part of its content type. */
export const MediaKind = Schema.Literals(["video", "image"]).annotate({
  description: `video: ${mediaContentTypes.filter((type) => type.startsWith("video/")).join(", ")}. ` +
    `image: ${mediaContentTypes.filter((type) => type.startsWith("image/")).join(", ")}.`
})
export type MediaKind = typeof MediaKind.Type

/** Which files of the library a page holds: all, or only those of a kind, a visibility, or both. */
export interface MediaFilter {
  readonly kind?: MediaKind | undefined
  readonly visibility?: MediaVisibility | undefined
}

/** Whether `file` is one `filter` keeps. */
export const isKeptBy = (filter: MediaFilter, file: { readonly key: string; readonly content_type: string }) =>
  (filter.kind === undefined || file.content_type.startsWith(`${filter.kind}/`)) &&
  (filter.visibility === undefined || visibilityOf(file.key) === filter.visibility)

/** A page of the media library request: ascending by id, cursor inclusive, the filter's files only. */
export interface MediaPageRequest extends MediaFilter {
  readonly cursor: MediaFileId | undefined
  readonly limit: number
}

/** One page of the media library; `next` is the id the following page starts at. */
export interface MediaPage {
  readonly items: ReadonlyArray<MediaListItem>
  readonly next: MediaFileId | undefined
}

// --- errors ---------------------------------------------------------------------------

/** The key was not issued by this service for this purpose (and course). */
export class UploadNotFound extends Schema.TaggedError<UploadNotFound>()(
  "UploadNotFound",
  { file_key: Schema.String },
  { description: "No upload with this file_key was issued here for this purpose and course." }
) {
  override get message(): string {
    return `No upload ${JSON.stringify(this.file_key)} was issued here for this purpose and course.`
  }
}

/** Finalize came before the object arrived in storage: upload first, then retry. */
export class UploadNotReceived extends Schema.TaggedError<UploadNotReceived>()(
  "UploadNotReceived",
  { file_key: Schema.String },
  { description: "The object is not in storage yet: PUT it first, then finalize again." }
) {
  override get message(): string {
    return `The object ${JSON.stringify(this.file_key)} is not in storage yet: PUT it to the upload URL, then finalize again.`
  }
}

/** The upload URL expired and nothing was uploaded with it. */
export class UploadExpired extends Schema.TaggedError<UploadExpired>()(
  "UploadExpired",
  { file_key: Schema.String },
  { description: "The upload URL expired and nothing was uploaded: request a new one." }
) {
  override get message(): string {
    return `The upload URL for ${JSON.stringify(this.file_key)} expired and nothing was uploaded: request a new one.`
  }
}

/** The file is larger than the purpose allows (declared, or as stored). */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()(
  "FileTooLarge",
  {
    size_bytes: Schema.Number,
    max_bytes: Schema.Number,
    /** Set when the file fits a multipart upload: its limit. */
    multipart_max_bytes: Schema.optionalKey(Schema.Number)
  },
  { description: "The file is larger than allowed." }
) {
  override get message(): string {
    return this.multipart_max_bytes === undefined
      ? `The file has ${this.size_bytes} bytes; at most ${this.max_bytes} are allowed.`
      : `The file has ${this.size_bytes} bytes; one PUT takes at most ${this.max_bytes}. Upload it in parts (multipart), which takes up to ${this.multipart_max_bytes}.`
  }
}

/** No media file is recorded under this key. */
export class MediaNotFound extends Schema.TaggedError<MediaNotFound>()(
  "MediaNotFound",
  { file_key: Schema.String },
  { description: "No media file is recorded under this file_key." }
) {
  override get message(): string {
    return `No media file is recorded under ${JSON.stringify(this.file_key)}.`
  }
}

/** The file is still a lesson's video or a course's thumbnail: it stays until nothing uses it. */
export class MediaInUse extends Schema.TaggedError<MediaInUse>()(
  "MediaInUse",
  { file_key: Schema.String, ...MediaUses.fields },
  { description: "Lessons still use this media file as their video, or a course as its thumbnail." }
) {
  override get message(): string {
    const uses = this.lessons.map((lesson) => `the video of lesson ${lesson.lesson_id} of course ${lesson.course_id}`)
    if (this.thumbnail_of !== null) uses.push(`the thumbnail of course ${this.thumbnail_of}`)
    return `${JSON.stringify(this.file_key)} is ${uses.join(", ")}: change those first.`
  }
}

/** The file's type is not allowed for the purpose (declared, or as stored). */
export class UnsupportedFileType extends Schema.TaggedError<UnsupportedFileType>()(
  "UnsupportedFileType",
  { content_type: Schema.String, allowed: Schema.Array(Schema.String) },
  { description: "The file's type is not allowed here." }
) {
  override get message(): string {
    return `The type ${JSON.stringify(this.content_type)} is not allowed here; allowed: ${this.allowed.join(", ")}.`
  }
}
