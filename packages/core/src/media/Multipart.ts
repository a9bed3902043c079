/**
 * Multipart uploads of media files: the requests and answers of the five steps, the part
 * plan the service picks, and their errors. Large files go up in parts, straight to the
 * store, in parallel, and resume after a dropped connection with only the missing parts;
 * `Uploads` runs the steps.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { firstOutOfOrder, maxPartCount, minPartSize } from "./ObjectStore.ts"
import { storableText } from "../shared/StorableText.ts"
import { ContentType, FileName, MediaVisibility, SizeBytes } from "./Upload.ts"

/** How long a multipart upload stays open: long enough for 50 GiB over a slow line. */
export const multipartValidityHours = 24

/** Most part URLs one request signs. */
export const maxPartUrlsPerRequest = 100

const MiB = 1024 * 1024

/**
 * The part size for `sizeBytes`: whole MiB, at least 5 MiB (S3's and R2's smallest part
 * but the last), and large enough that at most 10,000 parts carry the file.
 */
export const partSizeFor = (sizeBytes: number): number =>
  Math.max(minPartSize, Math.ceil(sizeBytes / maxPartCount / MiB) * MiB)

/** How many parts of `partSize` carry `sizeBytes` (one, for an empty file). */
export const partCountFor = (sizeBytes: number, partSize: number): number => Math.max(1, Math.ceil(sizeBytes / partSize))

/** The length of part `partNumber` (1-based) of a file of `sizeBytes` in parts of `partSize`. */
export const partLength = (sizeBytes: number, partSize: number, partNumber: number): number =>
  Math.min(partSize, sizeBytes - (partNumber - 1) * partSize)

// --- requests and responses ----------------------------------------------------------

/** A multipart upload's id in the API. */
export const UploadId = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, { message: "upload_id must be the id POST /admin/media/multipart answered" })
).annotate({ description: "The multipart upload's id, as its creation answered it." })

/** `POST /admin/media/multipart`. */
export const MultipartCreateRequest = Schema.Struct({
  filename: FileName,
  type: ContentType,
  size_bytes: SizeBytes.annotate({ description: "Size of the file in bytes: the service picks the part size from it." }),
  visibility: Schema.optionalKey(MediaVisibility.annotate({ description: "Default public. Paid lesson videos must be private." }))
}).annotate({ identifier: "MultipartCreateRequest" })
export type MultipartCreateRequest = typeof MultipartCreateRequest.Type

/** The answer of `POST /admin/media/multipart`. */
export const MultipartUpload = Schema.Struct({
  upload_id: Schema.String,
  file_key: Schema.String,
  part_size: Schema.Int.annotate({ description: "Every part but the last holds exactly this many bytes." }),
  part_count: Schema.Int,
  expires_at: Schema.DateTimeUtcFromString.annotate({ description: "Until when parts may be uploaded and the upload completed." })
}).annotate({ identifier: "MultipartUpload" })
export type MultipartUpload = typeof MultipartUpload.Type

/** A part number, 1 to 10,000. */
export const PartNumber = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxPartCount }))

/** `POST /admin/media/multipart/{upload_id}/parts`. */
export const PartUrlsRequest = Schema.Struct({
  part_numbers: Schema.Array(PartNumber).check(
    Schema.isMinLength(1, { message: "name at least one part" }),
    Schema.isMaxLength(maxPartUrlsPerRequest, { message: `at most ${maxPartUrlsPerRequest} parts per request` })
  )
}).annotate({ identifier: "PartUrlsRequest" })
export type PartUrlsRequest = typeof PartUrlsRequest.Type

/** One signed part PUT. */
export const PartUrl = Schema.Struct({
  part_number: Schema.Int,
  upload_url: Schema.String,
  headers: Schema.Record(Schema.String, Schema.String).annotate({ description: "Headers the PUT must carry exactly (Content-Length)." }),
  expires_at: Schema.DateTimeUtcFromString
}).annotate({ identifier: "PartUrl" })
export type PartUrl = typeof PartUrl.Type

/** The answer of `POST /admin/media/multipart/{upload_id}/parts`. */
export const PartUrls = Schema.Struct({ parts: Schema.Array(PartUrl) }).annotate({ identifier: "PartUrls" })
export type PartUrls = typeof PartUrls.Type

/** A part the store holds. */
export const UploadedPart = Schema.Struct({
  part_number: Schema.Int,
  size_bytes: Schema.Int,
  etag: Schema.String
}).annotate({ identifier: "UploadedPart" })
export type UploadedPart = typeof UploadedPart.Type

/** The answer of `GET /admin/media/multipart/{upload_id}`: what the store holds now. */
export const MultipartStatus = Schema.Struct({
  upload_id: Schema.String,
  file_key: Schema.String,
  part_size: Schema.Int,
  part_count: Schema.Int,
  parts: Schema.Array(UploadedPart)
}).annotate({ identifier: "MultipartStatus" })
export type MultipartStatus = typeof MultipartStatus.Type

/** {@link firstOutOfOrder} of a completion's `parts` by their `part_number`. */
export const firstPartOutOfOrder = (parts: ReadonlyArray<{ readonly part_number: number }>): number | undefined =>
  firstOutOfOrder(parts.map((part) => part.part_number))

// A list out of order is a malformed request (a 400 naming the part), not a part storage
// lacks: a client that sorts its list completes.
const inAscendingOrder = Schema.makeFilter<ReadonlyArray<{ readonly part_number: number }>>((parts) => {
  const index = firstPartOutOfOrder(parts)
  return index === undefined ? undefined : {
    path: [index, "part_number"],
    issue: "parts must be listed in ascending part_number order, each part once: " +
      `part ${parts[index]!.part_number} follows part ${parts[index - 1]!.part_number}`
  }
})

/** `POST /admin/media/multipart/{upload_id}/complete`. */
export const MultipartCompleteRequest = Schema.Struct({
  parts: Schema.Array(Schema.Struct({
    part_number: PartNumber,
    etag: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128), storableText("etag"))
  })).check(Schema.isMinLength(1, { message: "name every part" }), Schema.isMaxLength(maxPartCount), inAscendingOrder)
}).annotate({ identifier: "MultipartCompleteRequest" })
export type MultipartCompleteRequest = typeof MultipartCompleteRequest.Type

// --- errors ---------------------------------------------------------------------------

/** No multipart upload with this id is open (never started, aborted, or swept). */
export class MultipartNotFound extends Schema.TaggedError<MultipartNotFound>()(
  "MultipartNotFound",
  { upload_id: Schema.String },
  { description: "No multipart upload with this id is open here." }
) {
  override get message(): string {
    return `No multipart upload ${JSON.stringify(this.upload_id)} is open here.`
  }
}

/** The upload was completed: its file is in the media library. */
export class MultipartCompleted extends Schema.TaggedError<MultipartCompleted>()(
  "MultipartCompleted",
  { upload_id: Schema.String, file_key: Schema.String },
  { description: "The multipart upload was completed; its file is in the media library." }
) {
  override get message(): string {
    return `The multipart upload ${JSON.stringify(this.upload_id)} was completed: its file is ${JSON.stringify(this.file_key)} in the media library.`
  }
}

/**
 * A part number past the upload's last part; `field` names the request's field that holds
 * it (`part_numbers` when asking part URLs, `parts` when completing).
 */
export class PartOutOfRange extends Schema.TaggedError<PartOutOfRange>()(
  "PartOutOfRange",
  { part_number: Schema.Int, part_count: Schema.Int, field: Schema.Literals(["part_numbers", "parts"]) },
  { description: "The upload has fewer parts." }
) {
  override get message(): string {
    return `Part ${this.part_number} does not exist: the upload has ${this.part_count} parts.`
  }
}

/**
 * Completion refused: a part is missing, not the one uploaded, or too small, or the list
 * is out of order (which the request's schema refuses first). Nothing changed.
 */
export class PartRejected extends Schema.TaggedError<PartRejected>()(
  "PartRejected",
  {
    reason: Schema.Literals(["missing_or_wrong_etag", "too_small", "not_in_order"]),
    part_number: Schema.NullOr(Schema.Int)
  },
  { description: "A part named at completion is missing, not the one uploaded, too small, or out of ascending order." }
) {
  override get message(): string {
    const part = this.part_number === null ? "The parts" : `Part ${this.part_number}`
    switch (this.reason) {
      case "missing_or_wrong_etag":
        return `${part}: not in storage with this ETag. Upload it (again) and name the ETag its PUT answered.`
      case "too_small":
        return `${part} is smaller than the part size; only the last part may be.`
      case "not_in_order":
        return `${part}: name every part once, in ascending part_number order.`
    }
  }
}
