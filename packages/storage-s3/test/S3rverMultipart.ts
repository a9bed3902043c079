/**
 * The multipart upload operations s3rver 3.7 lacks or gets wrong, emulated in the test
 * front (`S3rverProcess.ts`) as S3 answers them: the same status codes, error codes and
 * XML bodies, as the AWS SDK parses them.
 *
 * What s3rver 3.7 does (`lib/routes.js`, `lib/controllers/object.js`,
 * `lib/stores/filesystem.js`): CreateMultipartUpload keeps the upload in
 * `<directory>/<bucket>/._S3rver_uploads/<uploadId>/` (files `key` and `metadata`, the
 * initiating request's headers, whence the object's Content-Type); UploadPart writes the
 * part there as `<n>` (and `<n>.md5`) and answers its ETag; CompleteMultipartUpload
 * concatenates the named parts into the object and removes the directory. What it lacks:
 * - ListParts (GET `?uploadId`), AbortMultipartUpload (DELETE `?uploadId`): 405
 *   MethodNotAllowed; ListMultipartUploads (GET `?uploads`): 501 NotImplemented.
 * - UploadPart to an unknown upload id stores the part anyway (S3: 404 NoSuchUpload), takes
 *   any part number (S3: 1 to 10,000) and no Content-Length (S3: 411).
 * - CompleteMultipartUpload checks neither the ETags nor the sizes: a wrong ETag passes, a
 *   missing part is a 500 (a file not found) and a small part but the last is accepted,
 *   where S3 answers 400 InvalidPart and EntityTooSmall; an unknown upload id is a 500
 *   (S3: 404 NoSuchUpload), parts out of order are sorted (S3: 400 InvalidPartOrder), and
 *   the upload id of another key completes that key (S3: NoSuchUpload).
 *
 * How: the uploads are s3rver's (their directory, its `key` file and that file's mtime as
 * the initiation time), so completing and aborting them stays one state; the parts'
 * sizes, ETags and times are recorded here as s3rver answers each part's PUT (the
 * Content-Length of a 200, the ETag it answered), because s3rver answers a part before its
 * file is surely flushed, so a `stat` could read a short size. Every part PUT goes through
 * this front, so the record is whole. Complete is checked here, then its body is replayed
 * to s3rver, which assembles the object. S3 may also answer a Complete 200 and put an
 * error in the body (one that fails after it started answering); a Complete of a key that
 * contains {@link answers200WithError} gets that answer (`InternalError`), and the upload
 * stays, so tests see it surface as a failure. Not emulated: the multipart object's ETag
 * (S3: `"<md5 of the parts' md5s>-<count>"`; s3rver's is the whole object's MD5), and
 * `ListParts`/`ListMultipartUploads` owner fields beyond s3rver's one account. Path-style
 * addressing only, as the tests use.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import { join } from "node:path"

interface Part {
  readonly size: number
  readonly etag: string
  readonly lastModified: Date
}

interface Upload {
  readonly uploadId: string
  readonly key: string
  readonly initiated: Date
}

const minPartSize = 5 * 1024 * 1024

/** In a key, makes Complete answer 200 with an `InternalError` in the body, as S3 may. */
export const answers200WithError = "complete-answers-200-with-error"

const escapeXml = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;")

const unescapeXml = (value: string) =>
  value.replace(/&(quot|apos|lt|gt|amp|#(\d+)|#x([0-9a-fA-F]+));/g, (entity, name: string, decimal?: string, hex?: string) =>
    decimal !== undefined
      ? String.fromCodePoint(Number(decimal))
      : hex !== undefined
      ? String.fromCodePoint(parseInt(hex, 16))
      : ({ quot: "\"", apos: "'", lt: "<", gt: ">", amp: "&" } as Record<string, string>)[name] ?? entity)

const owner = "<ID>S3RVER</ID><DisplayName>S3rver</DisplayName>"

const xml = (root: string, fields: ReadonlyArray<string>) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${fields.join("")}</${root}>`

const element = (name: string, value: string | number | boolean | undefined) =>
  value === undefined ? "" : `<${name}>${escapeXml(String(value))}</${name}>`

/** Answers an S3 error, once the request's body is read so the client sees it rather than a reset. */
const sendError = (request: http.IncomingMessage, response: http.ServerResponse, status: number, code: string, message: string, detail: Record<string, string> = {}) => {
  const send = () => {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${element("Code", code)}${element("Message", message)}${
      Object.entries(detail).map(([name, value]) => element(name, value)).join("")
    }</Error>`
    response.writeHead(status, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body) }).end(body)
  }
  if (request.readableEnded) send()
  else request.resume().on("end", send)
}

const sendXml = (response: http.ServerResponse, body: string) =>
  response.writeHead(200, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body) }).end(body)

const readBody = (request: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject)
  })

/** The request again, its body read already: what s3rver's middleware reads instead. */
const replay = (request: http.IncomingMessage, body: Buffer): http.IncomingMessage => {
  const copy = new http.IncomingMessage(request.socket)
  copy.method = request.method!
  copy.url = request.url!
  copy.httpVersion = request.httpVersion
  copy.headers = { ...request.headers, "content-length": String(body.byteLength) }
  copy.rawHeaders = request.rawHeaders
  // Whole: an IncomingMessage destroyed before it is complete destroys its socket.
  copy.complete = true
  copy.push(body)
  copy.push(null)
  return copy
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

/**
 * The front's multipart handling for one bucket of s3rver's `directory`. `handle` answers
 * (or checks and passes on) a request that SigV4 let through and answers whether it took
 * it; `pass` hands a request to s3rver. `listPageSize` caps listing pages below what the
 * client asks (S3 may answer fewer than asked), so that tests see the pagination.
 */
export const make = (options: {
  readonly directory: string
  readonly bucket: string
  readonly listPageSize: number
  readonly pass: (request: http.IncomingMessage, response: http.ServerResponse) => void
}) => {
  const { bucket, pass } = options
  const uploadsDirectory = join(options.directory, bucket, "._S3rver_uploads")
  const parts = new Map<string, Map<number, Part>>()

  const uploadDirectory = (uploadId: string) => /^[0-9a-f]{32}$/.test(uploadId) ? join(uploadsDirectory, uploadId) : undefined

  /** The upload as s3rver keeps it, if it is there (and for `key`, when given). */
  const findUpload = (uploadId: string, key?: string): Upload | undefined => {
    const directory = uploadDirectory(uploadId)
    if (directory === undefined) return undefined
    try {
      const file = join(directory, "key")
      const stored = fs.readFileSync(file, "utf8")
      if (key !== undefined && stored !== key) return undefined
      return { uploadId, key: stored, initiated: fs.statSync(file).mtime }
    } catch {
      return undefined
    }
  }

  const allUploads = (): Array<Upload> => {
    let ids: Array<string>
    try {
      ids = fs.readdirSync(uploadsDirectory)
    } catch {
      return []
    }
    return ids.flatMap((uploadId) => findUpload(uploadId) ?? [])
      .sort((a, b) => byteOrder(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime() || byteOrder(a.uploadId, b.uploadId))
  }

  const noSuchUpload = (request: http.IncomingMessage, response: http.ServerResponse, uploadId: string) =>
    sendError(
      request,
      response,
      404,
      "NoSuchUpload",
      "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
      { UploadId: uploadId }
    )

  const pageSize = (asked: string | null) => {
    const number = asked === null ? 1000 : Number(asked)
    return Math.min(Number.isInteger(number) && number >= 0 ? number : 1000, 1000, options.listPageSize)
  }

  const uploadPart = (request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) => {
    const uploadId = query.get("uploadId") ?? ""
    const partNumber = Number(query.get("partNumber"))
    if (!(query.get("partNumber") !== null && Number.isInteger(partNumber) && partNumber >= 1 && partNumber <= 10_000)) {
      return sendError(request, response, 400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive", {
        ArgumentName: "partNumber",
        ArgumentValue: query.get("partNumber") ?? ""
      })
    }
    const length = request.headers["content-length"]
    if (length === undefined || !/^\d+$/.test(length)) {
      return sendError(request, response, 411, "MissingContentLength", "You must provide the Content-Length HTTP header.")
    }
    if (findUpload(uploadId, key) === undefined) return noSuchUpload(request, response, uploadId)
    response.on("finish", () => {
      const etag = response.getHeader("etag")
      // Unless the upload ended meanwhile: then S3 keeps no part either.
      if (response.statusCode === 200 && typeof etag === "string" && findUpload(uploadId) !== undefined) {
        const held = parts.get(uploadId) ?? new Map<number, Part>()
        held.set(partNumber, { size: Number(length), etag, lastModified: new Date() })
        parts.set(uploadId, held)
      }
    })
    pass(request, response)
  }

  const listParts = (request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) => {
    const uploadId = query.get("uploadId") ?? ""
    const upload = findUpload(uploadId, key)
    if (upload === undefined) return noSuchUpload(request, response, uploadId)
    const marker = Number(query.get("part-number-marker") ?? "0") || 0
    const max = pageSize(query.get("max-parts"))
    const after = [...(parts.get(uploadId) ?? new Map<number, Part>())].filter(([number]) => number > marker).sort(([a], [b]) => a - b)
    const page = after.slice(0, max)
    const truncated = after.length > page.length
    request.resume().on("end", () =>
      sendXml(
        response,
        xml("ListPartsResult", [
          element("Bucket", bucket),
          element("Key", key),
          element("UploadId", uploadId),
          `<Initiator>${owner}</Initiator><Owner>${owner}</Owner>`,
          element("StorageClass", "STANDARD"),
          element("PartNumberMarker", marker),
          element("NextPartNumberMarker", page.length > 0 ? page[page.length - 1]![0] : undefined),
          element("MaxParts", max),
          element("IsTruncated", truncated),
          ...page.map(([number, part]) =>
            `<Part>${element("PartNumber", number)}${element("LastModified", part.lastModified.toISOString())}${element("ETag", part.etag)}${
              element("Size", part.size)
            }</Part>`
          )
        ])
      ))
  }

  const abort = (request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) => {
    const uploadId = query.get("uploadId") ?? ""
    if (findUpload(uploadId, key) === undefined) return noSuchUpload(request, response, uploadId)
    fs.rmSync(uploadDirectory(uploadId)!, { recursive: true, force: true })
    parts.delete(uploadId)
    request.resume().on("end", () => response.writeHead(204).end())
  }

  const listUploads = (request: http.IncomingMessage, response: http.ServerResponse, query: URLSearchParams) => {
    const prefix = query.get("prefix") ?? ""
    const keyMarker = query.get("key-marker") ?? ""
    const uploadIdMarker = query.get("upload-id-marker") ?? ""
    const max = pageSize(query.get("max-uploads"))
    const urlEncoded = query.get("encoding-type") === "url"
    const encode = (value: string) => (urlEncoded ? encodeURIComponent(value) : value)
    const all = allUploads().filter((upload) => upload.key.startsWith(prefix))
    // After the markers, as S3 pages: later keys, or the marker key's uploads after the marked one.
    let start = all.findIndex((upload) => byteOrder(upload.key, keyMarker) > 0)
    if (keyMarker !== "" && uploadIdMarker !== "") {
      const marked = all.findIndex((upload) => upload.key === keyMarker && upload.uploadId === uploadIdMarker)
      if (marked !== -1) start = marked + 1
    }
    const after = keyMarker === "" ? all : start === -1 ? [] : all.slice(start)
    const page = after.slice(0, max)
    const truncated = after.length > page.length
    const last = page[page.length - 1]
    request.resume().on("end", () =>
      sendXml(
        response,
        xml("ListMultipartUploadsResult", [
          element("Bucket", bucket),
          element("KeyMarker", encode(keyMarker)),
          element("UploadIdMarker", uploadIdMarker),
          element("NextKeyMarker", last === undefined ? undefined : encode(last.key)),
          element("NextUploadIdMarker", last?.uploadId),
          urlEncoded ? element("EncodingType", "url") : "",
          element("Prefix", encode(prefix)),
          element("MaxUploads", max),
          element("IsTruncated", truncated),
          ...page.map((upload) =>
            `<Upload>${element("Key", encode(upload.key))}${element("UploadId", upload.uploadId)}<Initiator>${owner}</Initiator><Owner>${owner}</Owner>${
              element("StorageClass", "STANDARD")
            }${element("Initiated", upload.initiated.toISOString())}</Upload>`
          )
        ])
      ))
  }

  const complete = async (request: http.IncomingMessage, response: http.ServerResponse, key: string, query: URLSearchParams) => {
    const uploadId = query.get("uploadId") ?? ""
    const body = await readBody(request)
    if (findUpload(uploadId, key) === undefined) return noSuchUpload(request, response, uploadId)
    const text = body.toString("utf8")
    const named: Array<{ readonly number: number; readonly etag: string }> = []
    let malformed = !/<CompleteMultipartUpload[\s>]/.test(text)
    for (const [, part] of text.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
      const number = /<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part!)?.[1]
      const etag = /<ETag>([\s\S]*?)<\/ETag>/.exec(part!)?.[1]
      if (number === undefined || etag === undefined) malformed = true
      else named.push({ number: Number(number), etag: unescapeXml(etag) })
    }
    if (malformed || named.length === 0) {
      return sendError(request, response, 400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.")
    }
    if (named.some((part, index) => index > 0 && part.number <= named[index - 1]!.number)) {
      return sendError(request, response, 400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number.", {
        UploadId: uploadId
      })
    }
    const held = parts.get(uploadId) ?? new Map<number, Part>()
    // S3 compares ETags without their quotes.
    const invalid = named.find((part) => held.get(part.number)?.etag.replace(/"/g, "") !== part.etag.replace(/"/g, ""))
    if (invalid !== undefined) {
      return sendError(
        request,
        response,
        400,
        "InvalidPart",
        "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not have matched the part's entity tag.",
        { UploadId: uploadId, PartNumber: String(invalid.number), ETag: invalid.etag }
      )
    }
    const small = named.slice(0, -1).find((part) => held.get(part.number)!.size < minPartSize)
    if (small !== undefined) {
      return sendError(request, response, 400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.", {
        ProposedSize: String(held.get(small.number)!.size),
        MinSizeAllowed: String(minPartSize),
        PartNumber: String(small.number),
        ETag: small.etag
      })
    }
    if (key.includes(answers200WithError)) {
      return sendXml(
        response,
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`
      )
    }
    response.on("finish", () => {
      if (response.statusCode === 200) parts.delete(uploadId)
    })
    pass(replay(request, body), response)
  }

  return {
    /** Whether the front took the request (answered it, or checked and passed it on). */
    handle(request: http.IncomingMessage, response: http.ServerResponse): boolean {
      const url = new URL(request.url ?? "/", "http://front")
      const bucketPrefix = `/${encodeURIComponent(bucket)}`
      if (url.pathname !== bucketPrefix && !url.pathname.startsWith(`${bucketPrefix}/`)) return false
      const query = url.searchParams
      let key: string
      try {
        key = decodeURIComponent(url.pathname.slice(bucketPrefix.length + 1))
      } catch {
        return false
      }
      const method = request.method ?? "GET"
      if (key === "") {
        if (method === "GET" && query.has("uploads")) {
          listUploads(request, response, query)
          return true
        }
        return false
      }
      if (!query.has("uploadId")) return false
      if (method === "PUT" && request.headers["x-amz-copy-source"] === undefined) uploadPart(request, response, key, query)
      else if (method === "GET") listParts(request, response, key, query)
      else if (method === "DELETE") abort(request, response, key, query)
      else if (method === "POST") {
        complete(request, response, key, query).catch((error: unknown) => {
          if (!response.headersSent) sendError(request, response, 500, "InternalError", String(error))
        })
      } else return false
      return true
    }
  }
}
