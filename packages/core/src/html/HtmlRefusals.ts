/**
 * Why the sanitizer refused a document: the errors only, apart from the sanitizer and its
 * pipelines, so the HTTP contract (and a browser bundle of its client) can name them
 * without parse5 and unified.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * A document the sanitizer will not finish: more elements than its limit, longer to
 * sanitize than its time budget, or more memory than a worker may use. Nothing is stored.
 */
export class HtmlTooComplex extends Schema.TaggedError<HtmlTooComplex>()("HtmlTooComplex", {
  reason: Schema.Literals(["elements", "time", "memory"]),
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/**
 * Sanitized HTML longer than may be stored (`limit` characters), so that every stored
 * body can be written back. The serializer stops at the limit: how much longer is not known.
 */
export class HtmlTooLong extends Schema.TaggedError<HtmlTooLong>()("HtmlTooLong", {
  limit: Schema.Int
}) {
  override get message(): string {
    return `Once sanitized, the HTML is longer than the ${this.limit} characters that may be stored.`
  }
}

/** Every sanitizer worker is busy and the queue is full: try again shortly. */
export class SanitizerOverloaded extends Schema.TaggedError<SanitizerOverloaded>()("SanitizerOverloaded", {}) {
  override get message(): string {
    return "The HTML sanitizer is busy; try again shortly."
  }
}

/** Why a document was not sanitized. */
export type HtmlRefused = HtmlTooComplex | HtmlTooLong | SanitizerOverloaded
