/**
 * The middle step of an upload: the PUT of the file to the presigned URL, straight to
 * storage, with progress. In browsers it uses `XMLHttpRequest` (the only API that
 * reports upload progress); elsewhere `fetch`, counting the bytes as the body streams.
 * The response's status is checked before its body is read.
 *
 * @since 0.1.0
 */
import { CoursekitError } from "./CoursekitError.ts"

/** Progress of one upload. */
export interface UploadProgress {
  readonly loaded: number
  readonly total: number
}

/** Options of the upload helpers. */
export interface UploadOptions {
  /** Called as bytes go out (and once at the end with `loaded === total`). */
  readonly onProgress?: ((progress: UploadProgress) => void) | undefined
  /** Aborts the PUT. */
  readonly signal?: AbortSignal | undefined
}

/** What the upload-url call answered. */
export interface IssuedUpload {
  readonly upload_url: string
  readonly headers: Readonly<Record<string, string>>
}

// Browsers compute Content-Length themselves and refuse it as a request header.
const sendableHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "content-length"))

const refused = async (status: number, read: () => Promise<string>) => {
  const text = await read().catch(() => "")
  return new CoursekitError(status, {
    title: "Upload refused by storage",
    status,
    detail: `The storage answered the PUT with HTTP ${status}${text === "" ? "" : `: ${text.slice(0, 500)}`}`
  })
}

const aborted = () => new CoursekitError(0, { title: "Aborted", detail: "The upload was aborted." })

const viaXhr = (issued: IssuedUpload, file: Blob, options: UploadOptions) =>
  new Promise<string | undefined>((resolve, reject) => {
    // An aborted signal fires no more "abort" events: the PUT must not start at all.
    if (options.signal?.aborted) return reject(aborted())
    const xhr = new XMLHttpRequest()
    const abort = () => xhr.abort()
    // The signal may outlive this PUT (one serves every part of a multipart upload): its
    // listener goes before the promise settles, so that no caller sees it left behind.
    const settled = () => options.signal?.removeEventListener("abort", abort)
    xhr.open("PUT", issued.upload_url)
    for (const [name, value] of Object.entries(sendableHeaders(issued.headers))) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => options.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size })
    xhr.onload = () => {
      settled()
      if (xhr.status >= 200 && xhr.status < 300) {
        options.onProgress?.({ loaded: file.size, total: file.size })
        resolve(xhr.getResponseHeader("ETag") ?? undefined)
      } else {
        void refused(xhr.status, async () => xhr.responseText).then(reject)
      }
    }
    xhr.onerror = () => {
      settled()
      reject(new CoursekitError(0, { title: "No answer", detail: "The upload could not reach the storage." }))
    }
    xhr.onabort = () => {
      settled()
      reject(aborted())
    }
    options.signal?.addEventListener("abort", abort, { once: true })
    xhr.send(file)
  })

const viaFetch = async (issued: IssuedUpload, file: Blob, options: UploadOptions, fetchImpl: typeof fetch) => {
  const total = file.size
  let body: BodyInit = file
  const headers: Record<string, string> = { ...sendableHeaders(issued.headers) }
  if (options.onProgress !== undefined) {
    let loaded = 0
    const onProgress = options.onProgress
    body = file.stream().pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        loaded += chunk.byteLength
        onProgress({ loaded, total })
        controller.enqueue(chunk)
      }
    }))
    // A stream has no length of its own; storage that signed one needs it.
    headers["content-length"] = String(total)
  }
  let response: Response
  try {
    response = await fetchImpl(issued.upload_url, {
      method: "PUT",
      headers,
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      ...(options.signal === undefined ? {} : { signal: options.signal })
    } as RequestInit)
  } catch (cause) {
    throw new CoursekitError(0, { title: "No answer", detail: "The upload could not reach the storage." }, { cause })
  }
  if (!response.ok) throw await refused(response.status, () => response.text())
  await response.body?.cancel()
  if (options.onProgress !== undefined && total === 0) options.onProgress({ loaded: 0, total: 0 })
  return response.headers.get("etag") ?? undefined
}

/**
 * PUTs `file` to the presigned URL with the headers it was signed with; answers the
 * `ETag` storage sent (undefined when it sent none, or CORS does not expose it).
 */
export const putFile = (issued: IssuedUpload, file: Blob, options: UploadOptions, fetchImpl: typeof fetch): Promise<string | undefined> =>
  typeof XMLHttpRequest === "function" ? viaXhr(issued, file, options) : viaFetch(issued, file, options, fetchImpl)
