/**
 * The admin token of a server started without `ADMIN_TOKENS`: created once with 32 random
 * bytes, stored as `<DATA_DIR>/admin-token` (mode 0600), reused on later starts.
 *
 * @since 0.1.0
 */
import { Data, Effect, FileSystem, Path, Redacted } from "effect"
import { randomBytes } from "node:crypto"

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
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  const path = paths.resolve(dataDir, "admin-token")
  yield* fs.makeDirectory(dataDir, { recursive: true })
  const fresh = `ck_${randomBytes(32).toString("base64url")}`
  // Written whole under a private name, then linked into place: the link fails when the
  // file exists, so servers starting at once agree on one token, and no reader ever
  // sees a half-written file.
  const staging = paths.resolve(dataDir, `.admin-token.${process.pid}.${randomBytes(4).toString("hex")}`)
  yield* fs.writeFileString(staging, `${fresh}\n`, { flag: "wx", mode: 0o600 })
  const created = yield* fs.link(staging, path).pipe(
    Effect.as(true),
    Effect.catchIf((error) => error.reason._tag === "AlreadyExists", () => Effect.succeed(false)),
    Effect.ensuring(fs.remove(staging).pipe(Effect.ignore))
  )
  const token = created ? fresh : (yield* fs.readFileString(path)).trim()
  if (token.length < 16) return yield* new AdminTokenFileInvalid({ path })
  return { path, token: Redacted.make(token), created } satisfies AdminTokenFile
})
