/**
 * The client for code that does not use Effect: every endpoint of the Effect client as a
 * function returning a Promise (`await kit.courses.create({ payload })`), rejecting with
 * a {@link CoursekitError}; plus the three-step uploads with progress.
 *
 * @since 0.1.0
 */
import type { Course, CourseId, GenerateRequest, MediaFile, MediaVisibility } from "@coursekit/core"
import { Effect, Exit, Layer, ManagedRuntime, Stream } from "effect"
import { FetchHttpClient, type HttpClientResponse } from "effect/http"
import { type Client, type ClientOptions, CoursekitClient } from "./CoursekitClient.ts"
import { CoursekitError, fromCause } from "./CoursekitError.ts"
import { type GenerationEvent, streamGeneration } from "./GenerationStream.ts"
import { defaultMultipartThreshold, defaultResumeStore, joiningUploads, type MultipartOptions } from "./MultipartUpload.ts"
import { putFile, type UploadOptions } from "./PutFile.ts"
import { withWriteOptions, type WriteOptions } from "./WriteOptions.ts"

/**
 * What an endpoint answers by default (`decoded-only`): the client's methods are generic in
 * their response mode, so the raw-response variants are taken out of the union.
 */
type Decoded<S> = Exclude<S, HttpClientResponse.HttpClientResponse | readonly [unknown, HttpClientResponse.HttpClientResponse]>

/**
 * The Effect client's shape with Promises. Every call takes {@link WriteOptions} as a
 * second argument: `kit.courses.update({ params, payload }, { ifMatch: course.version })`.
 */
export type PromiseClient<C> = {
  readonly [K in keyof C]: C[K] extends (request: infer A) => Effect.Effect<infer S, infer _E, infer _R>
    ? (request: A, options?: WriteOptions) => Promise<Decoded<S>>
    : PromiseClient<C[K]>
}

/** Options of {@link createClient}. */
export interface PromiseClientOptions extends ClientOptions {
  /** The `fetch` to use; default the platform's. */
  readonly fetch?: typeof globalThis.fetch | undefined
}

/** The Promise client with the upload helpers. */
export type CoursekitPromiseClient = PromiseClient<Client> & {
  /**
   * Uploads a course thumbnail straight to storage: asks for a presigned URL, PUTs the
   * file there, then finalizes; answers the course with its `thumbnail_url`.
   */
  readonly uploadThumbnail: (courseId: CourseId, file: Blob, options?: UploadOptions) => Promise<Course>
  /**
   * Uploads a media file (video, image) the same way; answers the media record.
   * `visibility: "private"` for a paid lesson's video: its `url` is then signed and expires.
   * Files of at least `multipartThreshold` bytes (default 64 MiB) go up in parts, in
   * parallel, retried, resumable and cancellable (see {@link MultipartOptions}); a call for a
   * file this client is uploading in parts already joins that upload (the same media).
   */
  readonly uploadMedia: (file: Blob, options?: MediaUploadOptions) => Promise<MediaFile>
  /**
   * `POST /admin/ai/generate` as it happens: attempts, sanitized HTML block by block, then
   * `done` — `for await (const event of kit.streamGeneration({ prompt }))`. Rejects with a
   * {@link CoursekitError} (the `error` event's problem); leaving the loop early stops the
   * generation.
   */
  readonly streamGeneration: (request: GenerateRequest) => AsyncIterable<GenerationEvent>
  /** Releases the client's runtime. */
  readonly dispose: () => Promise<void>
}

/** Options of `uploadMedia`: the upload's, who may read the file (default public), and when and how to go in parts. */
export interface MediaUploadOptions extends UploadOptions, MultipartOptions {
  readonly visibility?: MediaVisibility | undefined
  /**
   * Pauses the upload: its PUTs stop and the promise rejects with an `AbortError`, but an
   * upload in parts is not deleted: it stays remembered in the `resumeStore`, and uploading
   * the same file again sends only the parts storage lacks. (`signal` cancels instead: the
   * upload is deleted.) One PUT has nothing to keep: the same file again starts it anew.
   */
  readonly pause?: AbortSignal | undefined
}

/** The name a file goes by, for the upload's extension. */
const nameOf = (file: Blob, fallback: string) => typeof (file as { name?: unknown }).name === "string" && (file as File).name !== "" ? (file as File).name : fallback

/** Browsers leave the type of some files empty; the specification's clients send JPEG then. */
const typeOf = (file: Blob) => file.type === "" ? "image/jpeg" : file.type

/** A Promise client of the API at `options.baseUrl`. */
export const createClient = (options: PromiseClientOptions): CoursekitPromiseClient => {
  const fetchLayer = options.fetch === undefined ? FetchHttpClient.layer : FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, options.fetch)))
  const runtime = ManagedRuntime.make(CoursekitClient.layer(options).pipe(Layer.provide(fetchLayer)))
  const run = async <A>(effect: Effect.Effect<A, unknown, CoursekitClient>): Promise<A> => {
    const exit = await runtime.runPromiseExit(effect)
    if (Exit.isSuccess(exit)) return exit.value
    throw fromCause(exit.cause)
  }
  const withClient = <A>(f: (client: Client) => Effect.Effect<A, unknown>) =>
    run(Effect.gen(function*() {
      return yield* f(yield* CoursekitClient)
    }))
  const fetchImpl = options.fetch ?? globalThis.fetch
  const resumeStore = defaultResumeStore()

  const multipartCalls = {
    create: (payload: Parameters<Client["multipart"]["create"]>[0]["payload"]) => withClient((client) => client.multipart.create({ payload })),
    partUrls: (uploadId: string, partNumbers: ReadonlyArray<number>) =>
      withClient((client) => client.multipart.partUrls({ params: { upload_id: uploadId }, payload: { part_numbers: partNumbers } })).then((answer) => answer.parts),
    status: (uploadId: string) => withClient((client) => client.multipart.status({ params: { upload_id: uploadId } })),
    complete: (uploadId: string, parts: ReadonlyArray<{ part_number: number; etag: string }>) =>
      withClient((client) => client.multipart.complete({ params: { upload_id: uploadId }, payload: { parts } })),
    abort: (uploadId: string) => withClient((client) => client.multipart.abort({ params: { upload_id: uploadId } })).then(() => undefined),
    finalize: (fileKey: string) => withClient((client) => client.media.finalizeUpload({ payload: { file_key: fileKey } }))
  }
  // One run per file at a time in this client: a second call for it joins the first.
  const uploadInParts = joiningUploads(multipartCalls)

  const uploadThumbnail = async (courseId: CourseId, file: Blob, upload: UploadOptions = {}) => {
    const issued = await withClient((client) =>
      client.courseUploads.uploadUrl({
        params: { id: courseId },
        payload: { file_name: nameOf(file, "thumbnail"), content_type: typeOf(file), size_bytes: file.size }
      })
    )
    await putFile(issued, file, upload, fetchImpl)
    return withClient((client) => client.courseUploads.finalizeUpload({ params: { id: courseId }, payload: { file_key: issued.file_key } }))
  }
  const uploadMedia = async (file: Blob, upload: MediaUploadOptions = {}) => {
    if (file.size >= (upload.multipartThreshold ?? defaultMultipartThreshold)) {
      return uploadInParts({
        file,
        filename: nameOf(file, "file"),
        type: typeOf(file),
        visibility: upload.visibility,
        baseUrl: options.baseUrl,
        onProgress: upload.onProgress,
        signal: upload.signal,
        pause: upload.pause,
        partsInFlight: upload.partsInFlight,
        store: upload.resumeStore ?? resumeStore,
        fetch: fetchImpl
      })
    }
    const issued = await withClient((client) =>
      client.media.uploadUrl({
        payload: {
          filename: nameOf(file, "file"),
          type: typeOf(file),
          size_bytes: file.size,
          ...(upload.visibility === undefined ? {} : { visibility: upload.visibility })
        }
      })
    )
    const signals = [upload.signal, upload.pause].filter((signal) => signal !== undefined)
    await putFile(issued, file, { onProgress: upload.onProgress, signal: signals.length < 2 ? signals[0] : AbortSignal.any(signals) }, fetchImpl)
    return withClient((client) => client.media.finalizeUpload({ payload: { file_key: issued.file_key } }))
  }

  const streamGenerationIterable = (request: GenerateRequest) =>
    Stream.toAsyncIterable(streamGeneration(options, request).pipe(
      Stream.mapError((error) => new CoursekitError(error.status, error.problem, { cause: error })),
      Stream.provide(fetchLayer)
    ))

  // Endpoints are looked up on the Effect client (built once by the runtime) when called.
  const client = new Proxy({}, {
    get: (_target, key) => {
      if (key === "uploadThumbnail") return uploadThumbnail
      if (key === "uploadMedia") return uploadMedia
      if (key === "streamGeneration") return streamGenerationIterable
      if (key === "dispose") return () => runtime.dispose()
      if (key === "then") return undefined
      return promisedPath(run, [key])
    }
  })
  return client as CoursekitPromiseClient
}

/** `kit.courses.create(args)` → the Effect client's `client.courses.create(args)`, run. */
const promisedPath = (run: <A>(effect: Effect.Effect<A, unknown, CoursekitClient>) => Promise<A>, path: ReadonlyArray<PropertyKey>): any =>
  new Proxy(function() {}, {
    get: (_target, key) => key === "then" ? undefined : promisedPath(run, [...path, key]),
    apply: (_target, _this, args: Array<unknown>) =>
      run(Effect.gen(function*() {
        let value: any = yield* CoursekitClient
        for (const key of path) value = value?.[key]
        if (typeof value !== "function") return yield* Effect.die(new TypeError(`No endpoint ${path.map(String).join(".")}`))
        const [request, options] = args as [unknown, WriteOptions | undefined]
        return yield* (value(request) as Effect.Effect<unknown, unknown>).pipe(withWriteOptions(options ?? {}))
      }))
  })

export { CoursekitError }
