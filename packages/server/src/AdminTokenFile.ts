/**
 * The admin token of a server started without `ADMIN_TOKENS`: created once with 32 random
 * bytes, stored as `<DATA_DIR>/admin-token` (mode 0600), reused on later starts.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Path, Redacted } from "effect"
import { randomBytes } from "node:crypto"

/** Where the token lives and whether this start created it. */
export interface AdminTokenFile {
  readonly path: string
  readonly token: Redacted.Redacted<string>
  readonly created: boolean
}

/** Reads the token file in `dataDir`, creating it (exclusively, mode 0600) when absent. */
export const ensure = Effect.fn("AdminTokenFile.ensure")(function*(dataDir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = (yield* Path.Path).resolve(dataDir, "admin-token")
  yield* fs.makeDirectory(dataDir, { recursive: true })
  const fresh = `ck_${randomBytes(32).toString("base64url")}`
  // "wx" fails when the file exists, so two servers starting at once agree on one token.
  const created = yield* fs.writeFileString(path, `${fresh}\n`, { flag: "wx", mode: 0o600 }).pipe(
    Effect.as(true),
    Effect.catchIf(
      (error) => error.reason._tag === "AlreadyExists",
      () => Effect.succeed(false)
    )
  )
  const token = created ? fresh : (yield* fs.readFileString(path)).trim()
  return { path, token: Redacted.make(token), created } satisfies AdminTokenFile
})
