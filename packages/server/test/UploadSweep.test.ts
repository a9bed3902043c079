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
    it.effect("removes temporary files a killed upload left, once older than an upload stays open, the grace period and its margin; younger ones stay", () =>
      Effect.gen(function*() {
        const sweep = yield* UploadSweep
        const old = join(storageDir, "media", ".upload-left-by-a-killed-process")
        const young = join(storageDir, "media", ".upload-still-within-the-grace-period")
        mkdirSync(join(storageDir, "media"), { recursive: true })
        for (const file of [old, young]) writeFileSync(file, "partial bytes")
        // The 24 hours an upload may stay open (a multipart one rests between parts), 30
        // minutes of grace and 5 of margin: 24 h 36 min untouched is abandoned, 24 h 20 min is not.
        const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000)
        utimesSync(old, ago(24 * 60 + 36), ago(24 * 60 + 36))
        utimesSync(young, ago(24 * 60 + 20), ago(24 * 60 + 20))
        // The server's own sweeper makes its first pass as it starts, and may get to the old
        // file first: what counts is that the sweep leaves it gone and the young one there.
        const report = yield* sweep.run
        assert.isAtMost(report.incomplete, 1)
        assert.isFalse(existsSync(old))
        assert.isTrue(existsSync(young))
      }))
  })
})
