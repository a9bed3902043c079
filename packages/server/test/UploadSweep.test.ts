import { UploadSweep } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { testSettings } from "./TestServer.ts"

const settings = testSettings({ uploadGracePeriod: Duration.minutes(30) })
const storageDir = settings.storage._tag === "local" ? settings.storage.dir : assert.fail("the test server keeps files on local disk")

describe("the upload sweep on the standalone server's local store", () => {
  layer(StandaloneServer.layerFrom(settings), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("removes temporary files a killed upload left, once older than the grace period (and its margin); younger ones stay", () =>
      Effect.gen(function*() {
        const sweep = yield* UploadSweep
        const old = join(storageDir, "media", ".upload-left-by-a-killed-process")
        const young = join(storageDir, "media", ".upload-still-within-the-grace-period")
        mkdirSync(join(storageDir, "media"), { recursive: true })
        for (const file of [old, young]) writeFileSync(file, "partial bytes")
        // 30 minutes of grace and 5 of margin: 36 minutes untouched is abandoned, 20 is not.
        utimesSync(old, new Date(Date.now() - 36 * 60_000), new Date(Date.now() - 36 * 60_000))
        utimesSync(young, new Date(Date.now() - 20 * 60_000), new Date(Date.now() - 20 * 60_000))
        // The server's own sweeper makes its first pass as it starts, and may get to the old
        // file first: what counts is that the sweep leaves it gone and the young one there.
        const report = yield* sweep.run
        assert.isAtMost(report.incomplete, 1)
        assert.isFalse(existsSync(old))
        assert.isTrue(existsSync(young))
      }))
  })
})
