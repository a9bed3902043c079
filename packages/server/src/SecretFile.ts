/**
 * Secrets a server creates for itself when none is configured (the admin token, the
 * local store's signing key): 32 random bytes, stored as `<DATA_DIR>/<name>` (mode 0600),
 * created once and reused on later starts.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Path, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as PrivateDirectory from "./PrivateDirectory.ts"

/** Where the secret lives and whether this start created it. */
export interface SecretFile {
  readonly path: string
  readonly secret: Redacted.Redacted<string>
  readonly created: boolean
}

/**
 * Reads `<dataDir>/<name>`, creating it when absent with `prefix` + 32 random bytes
 * (base64url). `secret` is the file's content, trimmed; callers check it.
 */
export const ensure = Effect.fn("SecretFile.ensure")(function*(dataDir: string, name: string, prefix: string) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  const path = paths.resolve(dataDir, name)
  yield* PrivateDirectory.ensure(dataDir)
  const fresh = `${prefix}${randomBytes(32).toString("base64url")}`
  // Written whole under a private name, then linked into place: the link fails when the
  // file exists, so servers starting at once agree on one secret, and no reader ever
  // sees a half-written file.
  const staging = paths.resolve(dataDir, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}`)
  yield* fs.writeFileString(staging, `${fresh}\n`, { flag: "wx", mode: 0o600 })
  const created = yield* fs.link(staging, path).pipe(
    Effect.as(true),
    Effect.catchIf((error) => error.reason._tag === "AlreadyExists", () => Effect.succeed(false)),
    Effect.ensuring(fs.remove(staging).pipe(Effect.ignore))
  )
  const secret = created ? fresh : (yield* fs.readFileString(path)).trim()
  return { path, secret: Redacted.make(secret), created } satisfies SecretFile
})
