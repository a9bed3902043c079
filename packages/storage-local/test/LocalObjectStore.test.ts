import { ObjectStore } from "@coursekit/core"
import { fetchGet, fetchPut, fetchPutPart, objectStoreSuite } from "@coursekit/core/testing"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fetchPublic, layerServed, TestStorage } from "./TestStorage.ts"

// A body (of an object or a part) longer than the signed length is 413 Content Too Large here; S3 answers 403 (the signature).
objectStoreSuite("local disk", layerServed(), {
  put: fetchPut,
  putPart: fetchPutPart,
  get: fetchGet,
  fetchPublic,
  refusedWith: { wrongLength: 413 }
})

const bytes = (text: string) => new TextEncoder().encode(text)

const badKeys = ["", "../x", "a/../../x", "/etc/passwd", "a\\b", "a\u0000b", ".meta/a.png", "a//b", "./a", "a/.", "a/", "a/.hidden"]

describe("LocalObjectStore", () => {
  layer(layerServed(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("refuses keys that could leave the store or reach its own files", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        for (const key of badKeys) {
          const presigned = yield* Effect.flip(store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) }))
          assert.strictEqual(presigned.operation, "presignPut", `presignPut ${JSON.stringify(key)}`)
          const head = yield* Effect.flip(store.head(key))
          assert.strictEqual(head._tag, "StorageError", `head ${JSON.stringify(key)}`)
          const deleted = yield* Effect.flip(store.delete(key))
          assert.strictEqual(deleted._tag, "StorageError", `delete ${JSON.stringify(key)}`)
        }
      }))

    it.effect("refuses content types that cannot travel as a header, and bad lengths", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        for (const contentType of ["", " image/png", "image/png\r\nx-evil: 1", "image/png "]) {
          const refused = yield* Effect.flip(store.presignPut({ key: "t/a.png", contentType, expiresIn: Duration.minutes(5) }))
          assert.strictEqual(refused.operation, "presignPut", JSON.stringify(contentType))
        }
        for (const contentLength of [-1, 1.5, Number.NaN]) {
          const refused = yield* Effect.flip(store.presignPut({ key: "t/a.png", contentType: "image/png", contentLength, expiresIn: Duration.minutes(5) }))
          assert.strictEqual(refused.operation, "presignPut", String(contentLength))
        }
      }))

    it.effect("presignGet refuses invalid keys and expiries no URL can carry; presignPut such expiries too", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        for (const key of badKeys) {
          const refused = yield* Effect.flip(store.presignGet({ key, expiresIn: Duration.minutes(5) }))
          assert.strictEqual(refused.operation, "presignGet", JSON.stringify(key))
        }
        const refused = yield* Effect.flip(store.presignGet({ key: "private/a.mp4", expiresIn: Duration.infinity }))
        assert.strictEqual(refused.operation, "presignGet")
        const refusedPut = yield* Effect.flip(store.presignPut({ key: "a.png", contentType: "image/png", expiresIn: Duration.infinity }))
        assert.strictEqual(refusedPut.operation, "presignPut")
      }))

    it.effect("the signed URL carries key, expiry, type, length and signature; expiresAt is the signed second", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { baseUrl } = yield* TestStorage
        const presigned = yield* store.presignPut({
          key: "sig/a b.png",
          contentType: "text/plain; charset=utf-8",
          contentLength: 3,
          expiresIn: Duration.minutes(5)
        })
        const url = new URL(presigned.url)
        assert.strictEqual(`${url.origin}${url.pathname}`, `${baseUrl}/storage/sig/a%20b.png`)
        assert.deepStrictEqual([...url.searchParams.keys()], ["expires", "type", "length", "signature"])
        assert.strictEqual(url.searchParams.get("type"), "text/plain; charset=utf-8")
        assert.strictEqual(url.searchParams.get("length"), "3")
        assert.match(url.searchParams.get("signature") ?? "", /^[0-9a-f]{64}$/)
        assert.strictEqual(Number(url.searchParams.get("expires")) * 1000, presigned.expiresAt.epochMilliseconds)
        assert.deepStrictEqual(presigned.headers, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "3" })
        assert.strictEqual(yield* fetchPut(presigned, bytes("abc"), presigned.headers), 200)
        assert.strictEqual(Option.getOrThrow(yield* store.head("sig/a b.png")).contentType, "text/plain; charset=utf-8")
      }))

    it.effect("stores bytes and content type on disk; delete removes both", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const presigned = yield* store.presignPut({ key: "disk/a.png", contentType: "image/png", expiresIn: Duration.minutes(5) })
        assert.strictEqual(yield* fetchPut(presigned, bytes("png!"), presigned.headers), 200)
        assert.strictEqual(readFileSync(join(root, "disk/a.png"), "utf8"), "png!")
        assert.deepStrictEqual(JSON.parse(readFileSync(join(root, ".meta/disk/a.png"), "utf8")), { contentType: "image/png" })
        assert.strictEqual(statSync(join(root, "disk/a.png")).mode & 0o777, 0o600)
        yield* store.delete("disk/a.png")
        assert.isFalse(existsSync(join(root, "disk/a.png")))
        assert.isFalse(existsSync(join(root, ".meta/disk/a.png")))
        // A key that names a directory of other keys is absent, and deleting it is a no-op.
        yield* store.delete("disk")
        assert.deepStrictEqual(yield* store.head("disk"), Option.none())
      }))

    it.effect("list skips the metadata, uploads in progress, links and stray names", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root, dir } = yield* TestStorage
        const presigned = yield* store.presignPut({ key: "listed/a.png", contentType: "image/png", expiresIn: Duration.minutes(5) })
        assert.strictEqual(yield* fetchPut(presigned, bytes("a"), presigned.headers), 200)
        writeFileSync(join(root, "listed/.upload-0123"), "partial")
        writeFileSync(join(root, "listed/b\\c"), "not a key")
        writeFileSync(join(dir, "outside.txt"), "outside")
        mkdirSync(join(root, "listed/sub"))
        symlinkSync(join(dir, "outside.txt"), join(root, "listed/sub/link.png"))
        const page = yield* store.list("listed/")
        assert.deepStrictEqual(page.objects.map((object) => object.key), ["listed/a.png"])
        const everything = yield* store.list("")
        assert.deepStrictEqual(everything.objects.map((object) => object.key).filter((key) => key.startsWith(".")), [])
        // A link is not followed by head either.
        assert.deepStrictEqual(yield* store.head("listed/sub/link.png"), Option.none())
      }))

    it.effect("list orders keys across directories as strings, not per directory", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        // "-" (0x2d) sorts before "/" (0x2f): "o/a-b" < "o/a/c".
        const keys = ["o/a/c", "o/a-b", "o/a0", "o/a/b/d", "o/b"]
        for (const key of keys) {
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          assert.strictEqual(yield* fetchPut(presigned, bytes(key), presigned.headers), 200)
        }
        const sorted = [...keys].sort()
        const seen: Array<string> = []
        let after: string | undefined
        do {
          const page = yield* store.list("o/", { after, limit: 2 })
          seen.push(...page.objects.map((object) => object.key))
          after = page.next
        } while (after !== undefined)
        assert.deepStrictEqual(seen, sorted)
        assert.deepStrictEqual((yield* store.list("o/a/")).objects.map((object) => object.key), ["o/a/b/d", "o/a/c"])
        assert.deepStrictEqual((yield* store.list("o/", { after: "o/a/c" })).objects.map((object) => object.key), ["o/a0", "o/b"])
      }))
  })
})
