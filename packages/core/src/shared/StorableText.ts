/**
 * The rule every text input follows: what PostgreSQL stores as sent.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text the database stores as sent: no NUL (PostgreSQL text cannot hold it) and no
 * unpaired UTF-16 surrogate (it would be stored as U+FFFD). Every string input carries
 * it, so such text is a 400 before any I/O — never a failed or an altered write.
 */
export const storableText = (field: string) =>
  Schema.makeFilter<string>((text) =>
    unstorable.test(text) ? `${field} must not contain NUL characters or unpaired surrogates` : undefined
  )
