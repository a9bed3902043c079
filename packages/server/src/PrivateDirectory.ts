/**
 * The data directory holds the embedded database (paid lesson text, purchases), the
 * uploaded files and the generated secrets: it is private to the service's user (mode
 * 0700) whatever the umask, and a directory made before this rule (0755) is tightened
 * at start.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem } from "effect"

/** Creates `directory` when missing and sets its mode to 0700. */
export const ensure = Effect.fn("PrivateDirectory.ensure")(function*(directory: string) {
  const fs = yield* FileSystem.FileSystem
  yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
  yield* fs.chmod(directory, 0o700)
})
