/**
 * The disk walk behind `removeIncomplete` (`LocalDisk.removeTemporaryFiles`), against
 * directories removed while it goes, as completions and aborts remove upload directories.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as LocalDisk from "../src/LocalDisk.ts"

describe("LocalDisk.removeTemporaryFiles", () => {
  it.effect("directories removed while the walk goes (uploads completed or aborted meanwhile) do not fail it", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "local-disk-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const hourAgo = new Date(Date.now() - 3600_000)
      for (let round = 0; round < 3; round++) {
        const root = join(dir, String(round))
        // Many uploads (more than one directory read answers), each with a part being
        // written; and a temporary file a killed process left beside a key.
        const uploads = Array.from({ length: 200 }, (_, i) => join(root, ".multipart", `upload-${i}`))
        for (const upload of uploads) {
          mkdirSync(upload, { recursive: true })
          writeFileSync(join(upload, "upload.json"), "{}")
          writeFileSync(join(upload, ".upload-part"), "streaming")
        }
        const stale = join(root, "media", ".upload-killed")
        mkdirSync(join(root, "media"))
        writeFileSync(stale, "partial")
        utimesSync(stale, hourAgo, hourAgo)
        // One upload ends per turn of the event loop while the walk goes.
        let ended = 0
        const endOne = () => {
          if (ended === uploads.length) return
          rmSync(uploads[ended++]!, { recursive: true, force: true })
          setImmediate(endOne)
        }
        setImmediate(endOne)
        const removed = yield* Effect.promise(() => LocalDisk.removeTemporaryFiles(root, hourAgo.getTime() + 1000))
        assert.strictEqual(removed, 1, `round ${round}`)
        assert.isFalse(existsSync(stale))
        assert.isAbove(ended, 0, "no upload ended while the walk went")
      }
    }))
})
