/**
 * The page's script: Uppy's Dashboard with `@uppy/aws-s3` in multipart mode, its five
 * callbacks answered by Coursekit's multipart endpoints through `@coursekit/client`.
 * Uppy cuts the file, PUTs the parts straight to storage (in parallel), and brings its
 * own pause, resume, retry, cancel and progress; the service signs each part, lists what
 * storage holds, completes the upload into a media record, or aborts it. Bundled for the
 * browser, with Uppy's CSS, by server.ts.
 */
import { CoursekitError, createClient } from "@coursekit/client"
import { type MediaFile, partSizeFor } from "@coursekit/core"
import AwsS3, { type AwsS3Part } from "@uppy/aws-s3"
import Uppy, { type Meta, type UppyFile } from "@uppy/core"
import Dashboard from "@uppy/dashboard"
import "@uppy/core/css/style.min.css"
import "@uppy/dashboard/css/style.min.css"

/** What the service accepts as a media file (the same rules it applies itself). */
interface MediaRules {
  readonly contentTypes: ReadonlyArray<string>
  readonly maxBytes: number
}

/** What a finished upload hands to Uppy's `upload-success`: the media record complete answered. */
type Completed = { location?: string; media?: MediaFile }

declare global {
  interface Window {
    /** Handed to the page by the demo server; a real admin UI signs its admins in instead. */
    readonly COURSEKIT_DEMO_ADMIN_TOKEN: string
    /** Handed to the page by the demo server, from the service's settings. */
    readonly COURSEKIT_MEDIA_RULES: MediaRules
    /** The page's Uppy, for the browser console and the example's tests. */
    uppy: Uppy<Meta, Completed>
  }
}

const kit = createClient({ baseUrl: location.origin, adminToken: window.COURSEKIT_DEMO_ADMIN_TOKEN })
const rules = window.COURSEKIT_MEDIA_RULES

const explain = (cause: unknown) => cause instanceof CoursekitError ? `${cause.status || "Error"}: ${cause.message}` : String(cause)

/** The file's upload id and key as createMultipartUpload answered them (Uppy hands them back to the other callbacks). */
const uploadIdOf = (upload: { readonly uploadId?: string | undefined }) => {
  if (upload.uploadId === undefined) throw new Error("Uppy named no multipart upload")
  return upload.uploadId
}

/**
 * Headers a part PUT must carry, less those browsers set themselves: the part URL signs
 * `Content-Length`, which `XMLHttpRequest` refuses to set (the browser sends the length of
 * the part's bytes, the signed one when the part is cut at `part_size`).
 */
const settableHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "content-length"))

const uppy = new Uppy<Meta, Completed>({
  restrictions: { allowedFileTypes: [...rules.contentTypes], maxFileSize: rules.maxBytes }
})
  .use(Dashboard, {
    inline: true,
    target: "#uppy",
    height: 420,
    proudlyDisplayPoweredByUppy: false,
    note: `Videos and images up to ${rules.maxBytes / 1024 ** 3} GiB, uploaded in parts straight to storage`
  })
  .use(AwsS3, {
    // Every file in parts, however small (one part up to 5 MiB): one path, which the
    // service takes for any media file, and each file can be paused and resumed.
    shouldUseMultipart: true,
    /**
     * Uppy's chunk size must be the upload's `part_size`: every part but the last holds
     * exactly that many bytes, and each part URL signs its part's length. Uppy asks for it
     * before createMultipartUpload, synchronously and with only the size, so the page
     * computes it with the service's own rule, `partSizeFor` from @coursekit/core (whole
     * MiB, at least 5 MiB, at most 10,000 parts); createMultipartUpload then checks it
     * against the `part_size` the service answered, and refuses the upload rather than
     * send parts storage would refuse.
     */
    getChunkSize: ({ size }) => partSizeFor(size),

    // 1. Create: POST /admin/media/multipart.
    createMultipartUpload: async (file: UppyFile<Meta, Completed>) => {
      const size = file.size ?? 0
      const upload = await kit.multipart.create({ payload: { filename: file.name, type: file.type, size_bytes: size } })
      if (upload.part_size !== partSizeFor(size)) {
        await kit.multipart.abort({ params: { upload_id: upload.upload_id } })
        throw new Error(`The service cuts ${file.name} in parts of ${upload.part_size} bytes, the page in ${partSizeFor(size)}: the page's @coursekit/core is not the service's.`)
      }
      return { uploadId: upload.upload_id, key: upload.file_key }
    },

    // 2. Sign a part: POST /admin/media/multipart/{upload_id}/parts. Uppy asks just
    // before each PUT (and again for a retry), so the 5-minute URLs never go stale.
    signPart: async (_file, { uploadId, partNumber }) => {
      const { parts } = await kit.multipart.partUrls({ params: { upload_id: uploadId }, payload: { part_numbers: [partNumber] } })
      const part = parts[0]!
      return { method: "PUT", url: part.upload_url, headers: settableHeaders(part.headers) }
    },

    // 3. List parts, when Uppy resumes: GET /admin/media/multipart/{upload_id}; Uppy
    // PUTs only the parts storage does not hold.
    listParts: async (_file, upload) => {
      const status = await kit.multipart.status({ params: { upload_id: uploadIdOf(upload) } })
      return status.parts.map((part): AwsS3Part => ({ PartNumber: part.part_number, Size: part.size_bytes, ETag: part.etag }))
    },

    // 4. Complete with every part's ETag, as its PUT answered it: POST …/complete. The
    // answer is the media record.
    completeMultipartUpload: async (_file, { uploadId, parts }) => {
      const media = await kit.multipart.complete({
        params: { upload_id: uploadId },
        payload: { parts: parts.map((part) => ({ part_number: part.PartNumber!, etag: part.ETag! })) }
      })
      return { location: media.url, media }
    },

    // 5. Abort, when the upload is cancelled or the file removed: DELETE
    // /admin/media/multipart/{upload_id}, which frees the parts. Already gone is done.
    abortMultipartUpload: async (_file, upload) => {
      await kit.multipart.abort({ params: { upload_id: uploadIdOf(upload) } }).catch((cause: unknown) => {
        if (!(cause instanceof CoursekitError && cause.status === 404)) throw cause
      })
    }
  })
window.uppy = uppy

const uploaded = document.getElementById("uploaded") as HTMLUListElement
const error = document.getElementById("error") as HTMLParagraphElement

uppy.on("upload-success", (file, response) => {
  const media = response.body?.media
  if (file === undefined || media === undefined) return
  const item = document.createElement("li")
  item.dataset["fileKey"] = media.file_key
  const link = document.createElement("a")
  link.href = media.url
  link.textContent = media.file_key
  item.append(`${media.name}: `, link, `, ${media.size_bytes} bytes of ${media.content_type} (media file ${media.id}).`)
  uploaded.append(item)
})
uppy.on("upload-error", (file, cause) => {
  error.textContent = `${file?.name ?? "A file"} failed: ${explain(cause)}`
})
