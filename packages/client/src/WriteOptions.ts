/**
 * What a write sends besides its body: `If-Match` with the version the caller last read
 * (a record changed since is then not written: a 412 whose problem holds `current`), and
 * `Coursekit-Autosave: 1` for an autosave. The contract does not declare these headers
 * (their calls keep their shape); the client adds them from {@link withWriteOptions}.
 *
 * @since 0.3.0
 */
import { Context, Effect } from "effect"
import { HttpClientRequest } from "effect/http"

/** Options of one write. */
export interface WriteOptions {
  /** The version the write applies to (`record.version` as last read); `"*"`: any existing version. */
  readonly ifMatch?: number | "*" | undefined
  /** An autosave: consecutive ones by one author within 10 minutes keep one revision. */
  readonly autosave?: boolean | undefined
}

/** The options of the writes made by the effect they are provided to. */
export const CurrentWriteOptions = Context.Reference<WriteOptions>("@coursekit/client/CurrentWriteOptions", { defaultValue: () => ({}) })

/**
 * Runs a client call with `options`:
 * `client.courses.update({ params, payload }).pipe(withWriteOptions({ ifMatch: course.version }))`.
 */
export const withWriteOptions = (options: WriteOptions) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, CurrentWriteOptions, options)

/** `request` with the headers of the write options in context. */
export const addWriteHeaders = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.gen(function*() {
    const options = yield* CurrentWriteOptions
    let next = request
    // The server's ETag of a version is the version quoted (`etagOf` in @coursekit/http).
    if (options.ifMatch !== undefined) next = HttpClientRequest.setHeader(next, "if-match", options.ifMatch === "*" ? "*" : `"${options.ifMatch}"`)
    if (options.autosave === true) next = HttpClientRequest.setHeader(next, "coursekit-autosave", "1")
    return next
  })
