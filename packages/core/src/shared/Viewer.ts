/**
 * Who is looking at the public course: nobody in particular, or a signed-in user. How a
 * request becomes a viewer (a JWT, a host app's session) is the HTTP side's business;
 * the core only sees the result.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { storableText } from "./StorableText.ts"

/** Longest accepted user id, in characters. */
export const userIdMaxLength = 255

/** A user id as the identity provider issues it (a JWT's `sub`): 1 to 255 printable characters. */
export const UserId = Schema.String.check(
  Schema.isNonEmpty({ message: "user id must not be empty" }),
  Schema.isMaxLength(userIdMaxLength, { message: `user id must be at most ${userIdMaxLength} characters` }),
  Schema.isPattern(/^[^\u0000-\u001f\u007f]*$/, { message: "user id must not contain control characters" }),
  storableText("user id")
).pipe(
  Schema.brand("UserId"),
  Schema.annotate({ description: `User id from the identity provider (a JWT's sub); 1 to ${userIdMaxLength} characters.` })
)
export type UserId = typeof UserId.Type

/** The viewer of a request. */
export type Viewer =
  | { readonly _tag: "Anonymous" }
  | { readonly _tag: "User"; readonly id: UserId }

/** A request without credentials. */
export const anonymousViewer: Viewer = { _tag: "Anonymous" }

/** A signed-in user. */
export const signedInViewer = (id: UserId): Viewer => ({ _tag: "User", id })
