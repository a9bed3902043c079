/**
 * The data directory holds the embedded database (paid lesson text, purchases), the
 * uploaded files and the generated secrets: it is private to the service's user (mode
 * 0700) whatever the umask, and a directory made before this rule (0755) is tightened
 * at start. A directory the service's user does not own (a mounted volume shared with a
 * group) keeps its mode: changing it is its owner's business, and a warning says so.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem } from "effect"

/** Creates `directory` when missing and sets its mode to 0700 when this user owns it. */
export const ensure = Effect.fn("PrivateDirectory.ensure")(function*(directory: string) {
  const fs = yield* FileSystem.FileSystem
  yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
  const info = yield* fs.stat(directory)
  const owner = typeof process.getuid === "function" ? process.getuid() : undefined
  const owned = owner === undefined || info.uid._tag === "None" || info.uid.value === owner
  if (owned) return yield* fs.chmod(directory, 0o700)
  if ((info.mode & 0o077) !== 0) {
    yield* Effect.logWarning(
      `${directory} belongs to another user and is open to others (mode ${(info.mode & 0o777).toString(8)}); ` +
        "make it private to the service's user (chmod 700)."
    )
  }
})
