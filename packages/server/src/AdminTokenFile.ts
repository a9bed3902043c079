/**
 * The admin token of a server started without `ADMIN_TOKENS`: created once with 32 random
 * bytes, stored as `<DATA_DIR>/admin-token` (mode 0600), reused on later starts.
 *
 * @since 0.1.0
 */
import { Data, Effect, Redacted } from "effect"
import * as SecretFile from "./SecretFile.ts"

/** Where the token lives and whether this start created it. */
export interface AdminTokenFile {
  readonly path: string
  readonly token: Redacted.Redacted<string>
  readonly created: boolean
}

/** The token file exists but holds no usable token (emptied or edited by hand). */
export class AdminTokenFileInvalid extends Data.TaggedError("AdminTokenFileInvalid")<{ readonly path: string }> {
  override get message(): string {
    return `${this.path} holds no admin token of at least 16 characters; delete it to have a new one created, ` +
      `or set ADMIN_TOKENS.`
  }
}

/** Reads the token file in `dataDir`, creating it (mode 0600) when absent. */
export const ensure = Effect.fn("AdminTokenFile.ensure")(function*(dataDir: string) {
  const file = yield* SecretFile.ensure(dataDir, "admin-token", "ck_")
  if (Redacted.value(file.secret).length < 16) return yield* new AdminTokenFileInvalid({ path: file.path })
  return { path: file.path, token: file.secret, created: file.created } satisfies AdminTokenFile
})
