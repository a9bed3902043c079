/**
 * Coursekit's `ObjectStore` on S3 and S3-compatible stores (AWS S3, Cloudflare R2,
 * MinIO, Ceph RGW) through the AWS SDK v3. Clients upload straight to the store with
 * SigV4 presigned PUTs that sign the content type (and the length, when given), so the
 * store itself refuses any other upload. Private objects (keys under `private/`, which the
 * bucket policy keeps from anonymous reads) are read at SigV4 presigned GETs that make the
 * store answer `Cache-Control: private`. Large files go up in parts (S3's multipart
 * upload: presigned `UploadPart` PUTs, each signing its length); completion checks the
 * named parts against `ListParts` first, so a refusal names the part at fault, which
 * S3's own error message does not reliably do; `removeIncomplete` aborts the multipart
 * uploads nobody ended under the service's key prefixes (a bucket may be shared). Every SDK failure becomes a `StorageError` here (S3's refusals
 * to complete an upload a `MultipartRefused`): no SDK type crosses this file. The SDK is
 * loaded when a store is made, so a process on another store never loads it (about
 * 4 MiB of heap).
 *
 * @since 0.1.0
 */
import type { S3ClientConfig } from "@aws-sdk/client-s3"
import {
  type CompletedPart,
  completionRefusal,
  type GetRequest,
  keyPrefixes,
  type ListedObject,
  type MultipartRequest,
  MultipartRefused,
  type ObjectInfo,
  ObjectStore,
  partRequestRefusal,
  presignedPartHeaders,
  type PartRequest,
  type PresignedGet,
  type PresignedPut,
  presignedPutHeaders,
  type PutRequest,
  StorageError,
  type StoredPart
} from "@coursekit/core"
import { Config, DateTime, Duration, Effect, Layer, Option, Predicate, Redacted, type Scope } from "effect"

/** Options of {@link layer}. */
export interface Options {
  /** The S3 API endpoint, e.g. `http://127.0.0.1:9000` (MinIO) or `https://<account>.r2.cloudflarestorage.com`; absent for AWS. */
  readonly endpoint?: string | undefined
  /** The signing region: `us-east-1`, …; `auto` for R2. */
  readonly region: string
  readonly bucket: string
  /** Absent: the SDK's default credential chain (environment, profile, instance role, …). */
  readonly credentials?: {
    readonly accessKeyId: string
    readonly secretAccessKey: Redacted.Redacted<string>
  } | undefined
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`: MinIO and most self-hosted stores need it. */
  readonly forcePathStyle?: boolean | undefined
  /**
   * Where objects are publicly readable (a public bucket URL, an R2 custom domain).
   * Default: the bucket's own URL, from the endpoint and addressing style.
   */
  readonly publicBaseUrl?: string | undefined
  /** The longest any one store operation may take, retries included. Default 5 seconds. */
  readonly timeout?: Duration.Input | undefined
  /**
   * The longest `CompleteMultipartUpload` may take, retries included: S3 assembles the
   * object meanwhile, which it documents can take several minutes for a large one.
   * Default 5 minutes.
   */
  readonly completeTimeout?: Duration.Input | undefined
}

/** How long one operation may take when nothing says otherwise. */
export const defaultTimeout: Duration.Duration = Duration.seconds(5)

/** How long completing a multipart upload may take when nothing says otherwise. */
export const defaultCompleteTimeout: Duration.Duration = Duration.minutes(5)

/** Most keys of one `list` page (S3's limit). */
const maxPageSize = 1000

/** SigV4 presigned URLs live at most a week. */
const maxExpiresSeconds = 7 * 24 * 60 * 60

const startError = (reason: string) => new StorageError({ operation: "start", cause: new Error(reason) })

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "")

const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/")

/**
 * The bucket's own URL, from the endpoint and addressing style: where presigned uploads
 * and reads go, and what the store serves a key under when the bucket is public.
 */
export const bucketUrl = (options: Pick<Options, "endpoint" | "region" | "bucket" | "forcePathStyle">): string => {
  if (options.endpoint === undefined) return `https://${options.bucket}.s3.${options.region}.amazonaws.com`
  const endpoint = new URL(options.endpoint)
  if (options.forcePathStyle === true) return `${withoutTrailingSlash(endpoint.href)}/${encodeURIComponent(options.bucket)}`
  endpoint.host = `${options.bucket}.${endpoint.host}`
  return withoutTrailingSlash(endpoint.href)
}

/**
 * HEAD answers have no body, so the SDK only knows the status: 404 is an absent key.
 * (A missing bucket answers 404 too; `check` is what tells that apart.)
 */
const isNotFound = (error: unknown): boolean =>
  Predicate.hasProperty(error, "name") && (error.name === "NotFound" || error.name === "NoSuchKey") ||
  Predicate.hasProperty(error, "$metadata") && Predicate.hasProperty(error.$metadata, "httpStatusCode") &&
    error.$metadata.httpStatusCode === 404

/** The S3 error code a failed call answered (`NoSuchUpload`, `InvalidPart`, …), as the SDK names its error. */
const errorCode = (error: unknown): string | undefined =>
  Predicate.hasProperty(error, "name") && typeof error.name === "string" ? error.name : undefined

/** S3's refusals to complete an upload, as the port names them. */
const refusalReasons: Readonly<Record<string, MultipartRefused["reason"]>> = {
  NoSuchUpload: "NoSuchUpload",
  InvalidPart: "InvalidPart",
  // The parts are sorted before they are sent, so only a part named twice breaks the order.
  InvalidPartOrder: "InvalidPart",
  EntityTooSmall: "EntityTooSmall"
}

/**
 * The store on one bucket. The SDK client is created here and destroyed (its sockets
 * closed) with the scope. Fails with a `StorageError` when the options are unusable.
 */
export const make: (options: Options) => Effect.Effect<ObjectStore["Service"], StorageError, Scope.Scope> = Effect.fn(
  "S3ObjectStore.make"
)(function*(options: Options) {
  if (options.endpoint !== undefined && !URL.canParse(options.endpoint)) return yield* startError("endpoint is not an absolute URL")
  if (options.publicBaseUrl !== undefined && !URL.canParse(options.publicBaseUrl)) {
    return yield* startError("publicBaseUrl is not an absolute URL")
  }
  if (options.bucket === "") return yield* startError("bucket is empty")
  const timeout = Duration.fromInput(options.timeout ?? defaultTimeout)
  if (Option.isNone(timeout)) return yield* startError("timeout is not a duration")
  const completeTimeout = Duration.fromInput(options.completeTimeout ?? defaultCompleteTimeout)
  if (Option.isNone(completeTimeout)) return yield* startError("completeTimeout is not a duration")
  const {
    AbortMultipartUploadCommand,
    CompleteMultipartUploadCommand,
    CreateMultipartUploadCommand,
    DeleteObjectCommand,
    GetObjectCommand,
    HeadBucketCommand,
    HeadObjectCommand,
    ListMultipartUploadsCommand,
    ListObjectsV2Command,
    ListPartsCommand,
    PutObjectCommand,
    S3Client,
    UploadPartCommand
  } = yield* Effect.promise(() => import("@aws-sdk/client-s3"))
  const { getSignedUrl } = yield* Effect.promise(() => import("@aws-sdk/s3-request-presigner"))
  const bucket = options.bucket
  const publicBase = withoutTrailingSlash(options.publicBaseUrl ?? bucketUrl(options))

  const config: S3ClientConfig = {
    region: options.region,
    forcePathStyle: options.forcePathStyle ?? false,
    // Since SDK 3.729 the default puts a CRC32 of the (empty) body in presigned PUT
    // URLs, which the store then checks against the uploaded bytes, and not every
    // S3-compatible store knows the parameters. Checksums only where an operation requires them.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED"
  }
  if (options.endpoint !== undefined) config.endpoint = options.endpoint
  if (options.credentials !== undefined) {
    config.credentials = {
      accessKeyId: options.credentials.accessKeyId,
      secretAccessKey: Redacted.value(options.credentials.secretAccessKey)
    }
  }
  const client = yield* Effect.acquireRelease(
    Effect.try({ try: () => new S3Client(config), catch: (cause) => new StorageError({ operation: "start", cause }) }),
    (client) => Effect.sync(() => client.destroy())
  )

  /**
   * One SDK call, bounded in time: the timeout interrupts the call, which aborts its
   * request, so an unreachable store fails instead of hanging.
   */
  const call = <A>(
    operation: string,
    run: (abortSignal: AbortSignal) => Promise<A>,
    within: Duration.Duration = timeout.value
  ): Effect.Effect<A, StorageError> =>
    Effect.tryPromise({ try: run, catch: (cause) => new StorageError({ operation, cause }) }).pipe(
      Effect.timeoutOrElse({
        duration: within,
        orElse: () => Effect.fail(new StorageError({ operation, cause: new Error(`No answer from the store within ${Duration.format(within)}`) }))
      })
    )

  /**
   * When a presigned URL is signed and for how long: whole seconds, rounded down, as
   * SigV4 signs them, so the URL never outlives what was asked; signed at the clock's
   * now (or `issuedAt`, when earlier), whole seconds, so `signedAt + expiresIn` is exactly
   * when the store stops taking it, and equal inputs sign the same URL.
   */
  const signingWindow = Effect.fnUntraced(function*(operation: string, asked: Duration.Duration, issuedAt?: DateTime.Utc) {
    const expiresIn = Math.floor(Duration.toSeconds(asked))
    if (expiresIn < 1 || expiresIn > maxExpiresSeconds) {
      return yield* new StorageError({ operation, cause: new Error(`Expiry of ${expiresIn} seconds is outside 1 second to 7 days`) })
    }
    const now = yield* DateTime.now
    const from = issuedAt === undefined ? now : DateTime.min(issuedAt, now)
    const signedAt = Math.floor(DateTime.toEpochMillis(from) / 1000) * 1000
    return { expiresIn, signedAt }
  })

  const presignPut = Effect.fn("S3ObjectStore.presignPut")(function*(request: PutRequest) {
    const length = request.contentLength
    if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) {
      return yield* new StorageError({ operation: "presignPut", cause: new Error(`Content length ${length} is not a number of bytes`) })
    }
    // `maxLength` cannot be enforced: a presigned PUT signs an exact length or none. Without
    // a declared size, finalize's size check (which deletes what is too large) is the limit.
    const { expiresIn, signedAt } = yield* signingWindow("presignPut", request.expiresIn)
    const command = new PutObjectCommand({
      Bucket: bucket,
      Key: request.key,
      ContentType: request.contentType,
      ...(length === undefined ? {} : { ContentLength: length })
    })
    const url = yield* call("presignPut", () =>
      getSignedUrl(client, command, {
        expiresIn,
        signingDate: new Date(signedAt),
        // The presigner leaves Content-Type unsigned by default; signing it (and the
        // length) makes the store refuse a PUT that differs.
        signableHeaders: new Set(["content-type", ...(length === undefined ? [] : ["content-length"])])
      }))
    const headers = presignedPutHeaders({ contentType: request.contentType, contentLength: length })
    return { url, headers, expiresAt: DateTime.makeUnsafe(signedAt + expiresIn * 1000) } satisfies PresignedPut
  })

  const presignGet = Effect.fn("S3ObjectStore.presignGet")(function*(request: GetRequest) {
    const { expiresIn, signedAt } = yield* signingWindow("presignGet", request.expiresIn, request.issuedAt)
    // Signed into the URL (`response-cache-control`), so the store answers it: one viewer's
    // read, kept by no shared cache. The URL itself is refused once it expires.
    const command = new GetObjectCommand({ Bucket: bucket, Key: request.key, ResponseCacheControl: `private, max-age=${expiresIn}` })
    const url = yield* call("presignGet", () => getSignedUrl(client, command, { expiresIn, signingDate: new Date(signedAt) }))
    return { url, expiresAt: DateTime.makeUnsafe(signedAt + expiresIn * 1000) } satisfies PresignedGet
  })

  const head = Effect.fn("S3ObjectStore.head")(function*(key: string) {
    const found = yield* call("head", (abortSignal) => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal })).pipe(
      Effect.map(Option.some),
      Effect.catchIf((error) => isNotFound(error.cause), () => Effect.succeedNone)
    )
    if (Option.isNone(found)) return Option.none<ObjectInfo>()
    const output = found.value
    return Option.some<ObjectInfo>({
      size: output.ContentLength ?? 0,
      contentType: output.ContentType,
      lastModified: output.LastModified === undefined ? yield* DateTime.now : DateTime.fromDateUnsafe(output.LastModified)
    })
  })

  // S3 answers 204 for an absent key as for a present one.
  const delete_ = Effect.fn("S3ObjectStore.delete")(function*(key: string) {
    yield* call("delete", (abortSignal) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), { abortSignal }))
  })

  const list = Effect.fn("S3ObjectStore.list")(function*(prefix: string, listOptions?: {
    readonly after?: string | undefined
    readonly limit?: number | undefined
  }) {
    const limit = Math.min(Math.max(Math.floor(listOptions?.limit ?? maxPageSize), 1), maxPageSize)
    const output = yield* call("list", (abortSignal) =>
      client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          MaxKeys: limit,
          ...(listOptions?.after === undefined ? {} : { StartAfter: listOptions.after })
        }),
        { abortSignal }
      ))
    const objects: Array<ListedObject> = []
    for (const object of output.Contents ?? []) {
      if (object.Key === undefined) continue
      objects.push({
        key: object.Key,
        size: object.Size ?? 0,
        lastModified: object.LastModified === undefined ? yield* DateTime.now : DateTime.fromDateUnsafe(object.LastModified)
      })
    }
    // The port's cursor is a key (`after`), not S3's opaque continuation token.
    return { objects, next: output.IsTruncated === true ? objects[objects.length - 1]?.key : undefined }
  })

  const check = call("check", (abortSignal) => client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal })).pipe(
    Effect.asVoid,
    Effect.withSpan("S3ObjectStore.check")
  )


  const createMultipart = Effect.fn("S3ObjectStore.createMultipart")(function*(request: MultipartRequest) {
    const output = yield* call("createMultipart", (abortSignal) =>
      client.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: request.key, ContentType: request.contentType }),
        { abortSignal }
      ))
    if (output.UploadId === undefined || output.UploadId === "") {
      return yield* new StorageError({ operation: "createMultipart", cause: new Error("The store answered no upload id") })
    }
    return output.UploadId
  })

  const presignPart = Effect.fn("S3ObjectStore.presignPart")(function*(request: PartRequest) {
    const { contentLength: length, partNumber } = request
    const refused = partRequestRefusal(request)
    if (refused !== undefined) return yield* new StorageError({ operation: "presignPart", cause: new Error(refused) })
    const { expiresIn, signedAt } = yield* signingWindow("presignPart", request.expiresIn)
    const command = new UploadPartCommand({
      Bucket: bucket,
      Key: request.key,
      UploadId: request.uploadId,
      PartNumber: partNumber,
      ContentLength: length
    })
    // The length is signed, so the store refuses a part of another size. No Content-Type:
    // a part has none (the object's was given at createMultipart), and a header the client
    // need not send would only be one more for the bucket's CORS rule to allow.
    const url = yield* call("presignPart", () =>
      getSignedUrl(client, command, { expiresIn, signingDate: new Date(signedAt), signableHeaders: new Set(["content-length"]) }))
    return { url, headers: presignedPartHeaders(request), expiresAt: DateTime.makeUnsafe(signedAt + expiresIn * 1000) } satisfies PresignedPut
  })

  /** Every part S3 holds, with when it was last written; `None` for an upload that is not there. */
  const listAllParts = Effect.fnUntraced(function*(operation: string, key: string, uploadId: string) {
    const parts: Array<StoredPart & { readonly lastModified: Date | undefined }> = []
    let marker: string | undefined
    while (true) {
      const page = yield* call(operation, (abortSignal) =>
        client.send(
          new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId, ...(marker === undefined ? {} : { PartNumberMarker: marker }) }),
          { abortSignal }
        )).pipe(
          Effect.map(Option.some),
          Effect.catchIf((error) => errorCode(error.cause) === "NoSuchUpload", () => Effect.succeedNone)
        )
      if (Option.isNone(page)) return Option.none()
      for (const part of page.value.Parts ?? []) {
        if (part.PartNumber === undefined || part.Size === undefined || part.ETag === undefined) {
          return yield* new StorageError({ operation, cause: new Error("The store listed a part without its number, size or ETag") })
        }
        parts.push({ partNumber: part.PartNumber, size: part.Size, etag: part.ETag, lastModified: part.LastModified })
      }
      if (page.value.IsTruncated !== true) break
      const next = page.value.NextPartNumberMarker
      // A truncated page must move the marker on, or the listing would never end.
      if (next === undefined || next === marker) {
        return yield* new StorageError({ operation, cause: new Error("The store truncated a part listing without a next marker") })
      }
      marker = next
    }
    return Option.some(parts.sort((a, b) => a.partNumber - b.partNumber))
  })

  const listParts = Effect.fn("S3ObjectStore.listParts")(function*(key: string, uploadId: string) {
    const parts = yield* listAllParts("listParts", key, uploadId)
    return Option.map(parts, (all) => all.map(({ etag, partNumber, size }): StoredPart => ({ partNumber, size, etag })))
  })

  const completeMultipart = Effect.fn("S3ObjectStore.completeMultipart")(function*(
    key: string,
    uploadId: string,
    parts: ReadonlyArray<CompletedPart>
  ) {
    // Checked against what the store holds first, by the port's rules: S3 refuses the same
    // (InvalidPart, InvalidPartOrder, EntityTooSmall) but its message does not reliably name the part.
    const stored = yield* listAllParts("completeMultipart", key, uploadId)
    if (Option.isNone(stored)) return yield* new MultipartRefused({ reason: "NoSuchUpload" })
    const held = new Map(stored.value.map((part) => [part.partNumber, part]))
    const refusal = completionRefusal(parts, (partNumber) => held.get(partNumber))
    if (refusal !== undefined) return yield* refusal
    yield* call("completeMultipart", (abortSignal) =>
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: held.get(part.partNumber)!.etag })) }
        }),
        { abortSignal }
      ), completeTimeout.value).pipe(
        // What changed since the check (an abort, a part uploaded again) is refused by S3
        // itself. A refusal in a 200 answer's body is an error here too: the SDK makes it one.
        Effect.catchIf(
          (error) => refusalReasons[errorCode(error.cause) ?? ""] !== undefined,
          (error) => Effect.fail(new MultipartRefused({ reason: refusalReasons[errorCode(error.cause)!]! }))
        )
      )
  })

  /** Whether there was an upload to end: S3 answers NoSuchUpload for one already ended. */
  const abortUpload = (operation: string, key: string, uploadId: string): Effect.Effect<boolean, StorageError> =>
    call(operation, (abortSignal) =>
      client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }), { abortSignal })).pipe(
        Effect.as(true),
        Effect.catchIf((error) => errorCode(error.cause) === "NoSuchUpload", () => Effect.succeed(false))
      )

  const abortMultipart = Effect.fn("S3ObjectStore.abortMultipart")(function*(key: string, uploadId: string) {
    yield* abortUpload("abortMultipart", key, uploadId)
  })

  /** {@link removeIncomplete} for the uploads of keys under `prefix`. */
  const removeIncompleteUnder = Effect.fnUntraced(function*(prefix: string, before: DateTime.Utc) {
    const cutoff = DateTime.toEpochMillis(before)
    const isBefore = (date: Date | undefined) => date !== undefined && date.getTime() < cutoff
    let removed = 0
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    while (true) {
      const page = yield* call("removeIncomplete", (abortSignal) =>
        client.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            Prefix: prefix,
            ...(keyMarker === undefined ? {} : { KeyMarker: keyMarker }),
            ...(uploadIdMarker === undefined ? {} : { UploadIdMarker: uploadIdMarker })
          }),
          { abortSignal }
        ))
      const old = (page.Uploads ?? []).flatMap((upload) =>
        upload.Key !== undefined && upload.UploadId !== undefined && isBefore(upload.Initiated)
          ? [{ key: upload.Key, uploadId: upload.UploadId }]
          : []
      )
      const aborted = yield* Effect.forEach(old, ({ key, uploadId }) =>
        Effect.gen(function*() {
          const parts = yield* listAllParts("removeIncomplete", key, uploadId)
          // Ended meanwhile, or written to since `before`: not abandoned.
          if (Option.isNone(parts) || !parts.value.every((part) => isBefore(part.lastModified))) return false
          return yield* abortUpload("removeIncomplete", key, uploadId)
        }), { concurrency: 4 })
      removed += aborted.filter(Boolean).length
      if (page.IsTruncated !== true) break
      if (page.NextKeyMarker === undefined || (page.NextKeyMarker === keyMarker && page.NextUploadIdMarker === uploadIdMarker)) {
        return yield* new StorageError({ operation: "removeIncomplete", cause: new Error("The store truncated an upload listing without a next marker") })
      }
      keyMarker = page.NextKeyMarker
      uploadIdMarker = page.NextUploadIdMarker
    }
    return removed
  })

  /**
   * Aborts the multipart uploads under the service's key prefixes ({@link keyPrefixes})
   * started before `before` and not written to since (the latest part too): a large
   * upload that began long ago may still be going. The bucket may hold other
   * applications' uploads elsewhere; those are theirs. S3 single PUTs land whole or not
   * at all, so uploads are all there is to remove.
   */
  const removeIncomplete = Effect.fn("S3ObjectStore.removeIncomplete")(function*(before: DateTime.Utc) {
    let removed = 0
    for (const prefix of keyPrefixes) removed += yield* removeIncompleteUnder(prefix, before)
    return removed
  })

  return ObjectStore.of({
    presignPut,
    presignGet,
    createMultipart,
    presignPart,
    listParts,
    completeMultipart,
    abortMultipart,
    head,
    delete: delete_,
    list,
    removeIncomplete,
    publicUrl: (key) => `${publicBase}/${encodeKey(key)}`,
    check
  })
})

/** The store on `options.bucket`. */
export const layer = (options: Options): Layer.Layer<ObjectStore, StorageError> => Layer.effect(ObjectStore, make(options))

/** Both keys or neither: one alone is a mistake, not a reason to fall back to the default chain. */
const credentialsConfig: Config.Config<Options["credentials"]> = Config.flatMap(
  Config.all({
    accessKeyId: Config.option(Config.String("S3_ACCESS_KEY_ID")),
    secretAccessKey: Config.option(Config.Redacted("S3_SECRET_ACCESS_KEY"))
  }),
  ({ accessKeyId, secretAccessKey }) =>
    Option.isNone(accessKeyId) && Option.isNone(secretAccessKey)
      ? Config.succeed(undefined)
      // Read again as required: the one that is missing fails with its name.
      : Config.all({ accessKeyId: Config.String("S3_ACCESS_KEY_ID"), secretAccessKey: Config.Redacted("S3_SECRET_ACCESS_KEY") })
)

/**
 * The options from `S3_BUCKET`, `S3_REGION` (default `us-east-1`), `S3_ENDPOINT` (absent:
 * AWS), `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY` (both or neither; neither: the SDK's
 * default credential chain), `S3_FORCE_PATH_STYLE` (default false) and `S3_PUBLIC_URL`.
 */
export const config: Config.Config<Options> = Config.map(
  Config.all({
    endpoint: Config.option(Config.String("S3_ENDPOINT")),
    region: Config.String("S3_REGION").pipe(Config.withDefault("us-east-1")),
    bucket: Config.String("S3_BUCKET"),
    credentials: credentialsConfig,
    forcePathStyle: Config.Boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
    publicBaseUrl: Config.option(Config.String("S3_PUBLIC_URL"))
  }),
  (read): Options => ({
    endpoint: Option.getOrUndefined(read.endpoint),
    region: read.region,
    bucket: read.bucket,
    credentials: read.credentials,
    forcePathStyle: read.forcePathStyle,
    publicBaseUrl: Option.getOrUndefined(read.publicBaseUrl)
  })
)

/** The store configured by {@link config}. */
export const layerConfig: Layer.Layer<ObjectStore, StorageError | Config.ConfigError> = Layer.unwrap(Effect.map(config, layer))
