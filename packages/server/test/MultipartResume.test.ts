import { Effect, Layer } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import { sha256OfFile } from "./LargeFile.ts"
import { multipartResumeSuite, resumeSettings, StoreProbe } from "./MultipartResumeSuite.ts"
import { layerTestServerFrom, testSettings } from "./TestServer.ts"

// The 200 MiB multipart suite on the standalone server with its defaults (PGlite, the
// local-disk store): the part PUTs go to the server itself, which keeps each upload
// under `<storage>/.multipart/<upload>/`.

const settings = testSettings(resumeSettings)
const storage = settings.storage._tag === "local" ? settings.storage.dir : undefined
if (storage === undefined) throw new Error("the test server keeps files on local disk")
const multipart = join(storage, ".multipart")

const openUploads = () => existsSync(multipart) ? readdirSync(multipart) : []

/**
 * The service starts uploads with a part size, so the store lays them out in place:
 * `upload.json`, the `data` file and a `<n>.json` per committed part (naming no file of
 * its own); nothing else belongs in an upload's directory.
 */
const strayFiles = () =>
  openUploads().flatMap((upload) => {
    const names = readdirSync(join(multipart, upload))
    const named = names.filter((name) => /^\d+\.json$/.test(name))
      .map((name) => (JSON.parse(readFileSync(join(multipart, upload, name), "utf8")) as { file?: string }).file)
      .filter((file) => file !== undefined)
    return [
      ...named.map((file) => `${upload}/${file} (a part file: the upload is not laid out in place)`),
      ...names.filter((name) => name !== "upload.json" && name !== "data" && !/^\d+\.json$/.test(name)).map((name) => `${upload}/${name}`)
    ]
  })

const layerProbe = Layer.succeed(StoreProbe, StoreProbe.of({
  storedSha256: (key) => Effect.promise(() => sha256OfFile(join(storage, key))),
  openUploads: Effect.sync(openUploads),
  strayFiles: Effect.sync(strayFiles)
}))

/** The server's data directory (the 200 MiB object in its store) removed once the server has stopped. */
const layerRemovedAfter = Layer.effectDiscard(Effect.addFinalizer(() => Effect.promise(() => rm(settings.dataDir, { recursive: true, force: true }))))

multipartResumeSuite("PGlite, local disk", Layer.merge(layerTestServerFrom(settings), layerProbe).pipe(Layer.provideMerge(layerRemovedAfter)), {
  overPartSize: { status: 413, says: "The part must be 5242880 bytes, as signed; it is 5242881." },
  expired: { status: 403, says: "The part URL has expired: request a new one." }
})
