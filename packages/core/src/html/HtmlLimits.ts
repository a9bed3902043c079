/**
 * The limits every stored HTML body is held to, apart from the pipelines that enforce
 * them: records (`Course`, `Lesson`) name them in their schemas, and a browser bundle that
 * imports those records must not pull in parse5 and unified with them.
 *
 * @since 0.3.0
 */

/** The limits every document is held to. */
export interface HtmlLimits {
  /** Most elements a document may hold after parsing. */
  readonly maxElements: number
  /** Most characters the sanitized HTML may have: what may be stored. */
  readonly maxLength: number
}

/** Coursekit's limits: 100,000 elements, and the 1,000,000 characters a stored body may have. */
export const defaultHtmlLimits: HtmlLimits = { maxElements: 100_000, maxLength: 1_000_000 }
