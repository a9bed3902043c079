/**
 * What a write's headers say about it: `If-Match` (RFC 9110 §13.1.1) names the versions
 * the writer saw, `Coursekit-Autosave: 1` marks an autosave; the author is whoever the
 * admin check admitted ({@link CurrentAuthor}). And the other way: the strong `ETag` of
 * a record's answer, derived from its version.
 *
 * @since 0.3.0
 */
import type { Edit, Precondition } from "@coursekit/core"
import { Context, Effect } from "effect"
import { HttpEffect, HttpServerResponse, type HttpServerRequest } from "effect/http"
import { PreconditionRequired, ValidationProblem } from "../problems/Problems.ts"

/**
 * The author of the request's writes, set by the admin check: an admin token's name, the
 * host's user id. Outside an admitted request it is `admin`.
 */
export const CurrentAuthor = Context.Reference<string>("@coursekit/http/CurrentAuthor", { defaultValue: () => "admin" })

/**
 * Whether writes of versioned records (PATCH and DELETE of a course, lesson or section,
 * and restores) must carry `If-Match`: without it they are answered 428
 * (`REQUIRE_IF_MATCH`, the `requireIfMatch` option of the handlers). Default: not required.
 */
export const RequireIfMatch = Context.Reference<boolean>("@coursekit/http/RequireIfMatch", { defaultValue: () => false })

/** The strong entity tag of a record at `version`: `"3"`. */
export const etagOf = (version: number): string => `"${version}"`

const entityTag = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/
const versionTag = /^[1-9][0-9]{0,9}$/

/**
 * An `If-Match` value as a precondition: `*` is any version; otherwise the versions its
 * strong tags name (weak tags never match, RFC 9110 §8.8.3.2; a well-formed tag this
 * service did not write names none). Undefined when the value is not the header's grammar.
 */
export const parseIfMatch = (value: string): Precondition | undefined => {
  const trimmed = value.trim()
  if (trimmed === "*") return "any"
  const versions: Array<number> = []
  let any = false
  // Tags hold no commas in practice; a quoted comma would make the split fail the grammar, a 400.
  for (const element of trimmed.split(",")) {
    const item = element.trim()
    if (item === "") continue
    const tag = entityTag.exec(item)
    if (tag === null) return undefined
    any = true
    if (tag[1] === undefined && versionTag.test(tag[2]!)) versions.push(Number(tag[2]))
  }
  return any ? versions : undefined
}

/** A 400 naming one request header. */
const invalidHeader = (name: string, message: string) =>
  new ValidationProblem({ detail: `Invalid request headers: headers.${name}: ${message}`, errors: [{ path: `headers.${name}`, message }] })

/**
 * The {@link Edit} of a write request: its author, its `If-Match` (400 when malformed;
 * 428 when absent and required) and its `Coursekit-Autosave` (`1` or `0`; else 400).
 */
export const editOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const author = yield* CurrentAuthor
    const header = request.headers["if-match"]
    let ifMatch: Precondition | undefined
    if (header === undefined) {
      if (yield* RequireIfMatch) {
        return yield* new PreconditionRequired({
          detail: "This server requires If-Match on writes: send If-Match with the ETag (or the version, quoted: \"3\") of " +
            "the record as you last read it, or If-Match: * to write whatever its version."
        })
      }
    } else {
      ifMatch = parseIfMatch(header)
      if (ifMatch === undefined) {
        return yield* invalidHeader("if-match", "must be * or a list of entity tags, such as \"3\" (the ETag a read answered)")
      }
    }
    const autosave = request.headers["coursekit-autosave"]
    if (autosave !== undefined && autosave !== "1" && autosave !== "0") {
      return yield* invalidHeader("coursekit-autosave", "must be 1 (an autosave) or 0")
    }
    const edit: Edit = { author, ifMatch, autosave: autosave === "1" }
    return edit
  })

/** The author of a create (its first revision): no precondition applies. */
export const creatorEdit = Effect.gen(function*() {
  const edit: Edit = { author: yield* CurrentAuthor }
  return edit
})

/** Sets the strong `ETag` of the record at `version` on the response being built. */
export const withEtag = <A extends { readonly version: number }>(record: A) =>
  Effect.as(
    HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "etag", etagOf(record.version)))),
    record
  )
