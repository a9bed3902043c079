import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SignJWT } from "jose"
import { TestS3rver } from "../../storage-s3/test/TestS3rver.ts"
import { TcpProxy } from "./TcpProxy.ts"
import { call, jwtSecret, layerTestServer } from "./TestServer.ts"
import { s3rverStorage } from "./TestServerOnS3.ts"
import { assertProblem, createCourse, fetchBytes, finalizeMedia, finalizeThumbnail, mediaUrl, putBytes, thumbnailUrl } from "./UploadCalls.ts"

// Both upload flows on the standalone server with STORAGE=s3 against a real S3 server
// (s3rver, SigV4 verified) reached through a proxy the test can take down: the AWS SDK
// signs real URLs, the bytes go straight to the S3 server, finalize HEADs them there.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 500 }, (_, i) => (i * 7) % 256)])

const secret = new TextEncoder().encode(jwtSecret)
const viewerToken = (sub: string) =>
  Effect.promise(() => new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("10m").sign(secret))
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A private media file uploaded (not finalized): its upload-url answer. */
const uploadPrivate = Effect.gen(function*() {
  const issued = yield* mediaUrl({ filename: "other.mp4", type: "video/mp4", visibility: "private" })
  assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
  return issued.body as { file_key: string }
})

const mediaKeys = Effect.map(
  call("/admin/media?limit=50", { admin: true }),
  (reply) => (reply.body as Array<{ file_key: string }>).map((item) => item.file_key)
)

/** The S3 server's bucket as the service sees it: through the proxy. */
class Bucket extends Context.Service<Bucket, { readonly url: string }>()("test/Bucket") {}

const layerServerOnS3 = Layer.unwrap(Effect.gen(function*() {
  const s3 = yield* TestS3rver
  const proxy = yield* TcpProxy
  return Layer.merge(
    layerTestServer({
      // Fail fast while the proxy is down (retries included).
      storage: s3rverStorage(s3, { endpoint: proxy.url, timeout: "3 seconds" })
    }),
    Layer.succeed(Bucket, Bucket.of({ url: `${proxy.url}/${s3.bucket}` }))
  )
})).pipe(
  Layer.provideMerge(Layer.unwrap(Effect.gen(function*() {
    const s3 = yield* TestS3rver
    return TcpProxy.layer(s3.endpoint)
  }))),
  Layer.provideMerge(TestS3rver.layer())
)

describe("upload flows over HTTP (PGlite, S3 on s3rver)", () => {
  layer(layerServerOnS3, { timeout: 90_000, excludeTestServices: true })((it) => {
    it.effect("thumbnail: the URL is signed for the bucket, the bytes go to S3, finalize records them; the bucket serves them", () =>
      Effect.gen(function*() {
        const bucket = yield* Bucket
        const id = yield* createCourse("S3 thumbnail")
        const issued = yield* thumbnailUrl(id, { file_name: "cover.png", content_type: "image/png", size_bytes: png.byteLength })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.match(issued.body.file_key, new RegExp(`^courses/${id}/[0-9a-f-]{36}\\.png$`))
        assert.strictEqual(issued.body.upload_url.split("?")[0], `${bucket.url}/${issued.body.file_key}`)
        assert.include(issued.body.upload_url, "X-Amz-Signature=")
        assert.deepStrictEqual(issued.body.headers, { "Content-Type": "image/png", "Content-Length": String(png.byteLength) })
        // The service does not serve the upload: its own /storage route is not mounted.
        const own = yield* call(`/storage/${issued.body.file_key}`, { method: "PUT", body: png as BodyInit })
        assert.strictEqual(own.status, 404)
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const finalized = yield* finalizeThumbnail(id, issued.body.file_key)
        assert.strictEqual(finalized.status, 200, finalized.text)
        assert.strictEqual(finalized.body.thumbnail_url, `${bucket.url}/${issued.body.file_key}`)
        const served = yield* fetchBytes(finalized.body.thumbnail_url)
        assert.strictEqual(served.status, 200)
        assert.deepStrictEqual(served.body, png)
        assert.strictEqual(served.headers.get("content-type"), "image/png")
        const again = yield* finalizeThumbnail(id, issued.body.file_key)
        assert.strictEqual(again.status, 200)
        assert.strictEqual(again.body.thumbnail_url, finalized.body.thumbnail_url)
      }))

    it.effect("a private video on S3: locked for anonymous and a non-buyer, a presigned GET for a buyer, none after the refund", () =>
      Effect.gen(function*() {
        const bucket = yield* Bucket
        const issued = yield* mediaUrl({ filename: "lecture.mp4", type: "video/mp4", visibility: "private", size_bytes: png.byteLength })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.match(issued.body.file_key, /^private\/media\/[0-9a-f-]{36}\.mp4$/)
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const finalized = yield* finalizeMedia(issued.body.file_key)
        assert.strictEqual(finalized.body.visibility, "private")
        assert.strictEqual(finalized.body.url.split("?")[0], `${bucket.url}/${issued.body.file_key}`)
        const id = yield* createCourse("S3 private video")
        const slug = (yield* call(`/courses/${id}`, { admin: true })).body.slug as string
        const lesson = yield* call(`/courses/${id}/lessons`, { method: "POST", admin: true, json: { title: "Paid", video_key: issued.body.file_key } })
        assert.strictEqual(lesson.status, 201, lesson.text)
        const videoOf = (headers: Record<string, string>) =>
          Effect.map(call(`/public/courses/${slug}`, { headers }), (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            return reply.body.lessons[0] as { access: string; video_url: string | null; video_url_expires_at: string | null }
          })
        for (const headers of [{}, bearer(yield* viewerToken("s3-stranger"))]) {
          assert.deepStrictEqual(yield* videoOf(headers), { ...(yield* videoOf(headers)), access: "locked", video_url: null, video_url_expires_at: null })
        }
        yield* call(`/admin/courses/${id}/purchases/s3-buyer`, { method: "PUT", admin: true })
        const buyer = bearer(yield* viewerToken("s3-buyer"))
        const bought = yield* videoOf(buyer)
        assert.strictEqual(bought.access, "purchased")
        const signed = new URL(bought.video_url!)
        assert.strictEqual(`${signed.origin}${signed.pathname}`, `${bucket.url}/${issued.body.file_key}`)
        assert.strictEqual(signed.searchParams.get("X-Amz-Expires"), String(4 * 3600))
        // Signed as of the 15-minute window's start (MediaUrls.reuseWindow): 3¾ to 4 hours left.
        assert.isAtMost(Date.parse(bought.video_url_expires_at!) - Date.now(), 4 * 3600_000)
        assert.isAbove(Date.parse(bought.video_url_expires_at!) - Date.now(), 3.75 * 3600_000 - 5_000)
        assert.strictEqual((yield* videoOf(buyer)).video_url, bought.video_url)
        const played = yield* fetchBytes(bought.video_url!)
        assert.deepStrictEqual([played.status, played.body], [200, png])
        assert.match(played.headers.get("cache-control")!, /^private, max-age=\d+$/)
        const ranged = yield* Effect.promise(async () => {
          const response = await fetch(bought.video_url!, { headers: { range: "bytes=8-11" } })
          return { status: response.status, range: response.headers.get("content-range"), body: new Uint8Array(await response.arrayBuffer()) }
        })
        assert.deepStrictEqual(ranged, { status: 206, range: `bytes 8-11/${png.byteLength}`, body: png.slice(8, 12) })
        // Changed path, expiry or signature; unsigned (the bucket policy); the uuid under the public prefix.
        const other = (yield* finalizeMedia((yield* uploadPrivate).file_key)).body.file_key as string
        const query = (name: string, value: string) => {
          const changed = new URL(signed)
          changed.searchParams.set(name, value)
          return changed.href
        }
        const signature = signed.searchParams.get("X-Amz-Signature")!
        for (
          const forged of [
            `${bucket.url}/${other}${signed.search}`,
            query("X-Amz-Expires", String(4 * 3600 + 60)),
            query("X-Amz-Signature", `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`),
            `${bucket.url}/${issued.body.file_key}`
          ]
        ) {
          const reply = yield* fetchBytes(forged)
          assert.strictEqual(reply.status, 403, forged)
          assert.notDeepEqual(reply.body, png)
        }
        assert.strictEqual((yield* fetchBytes(`${bucket.url}/${issued.body.file_key.replace(/^private\//, "")}`)).status, 404)
        yield* call(`/admin/courses/${id}/purchases/s3-buyer`, { method: "DELETE", admin: true })
        const refunded = yield* videoOf(buyer)
        assert.deepStrictEqual([refunded.access, refunded.video_url, refunded.video_url_expires_at], ["locked", null, null])
      }))

    it.effect("media: size and type from S3; 50 concurrent finalizes give one record", () =>
      Effect.gen(function*() {
        const issued = yield* mediaUrl({ filename: "lecture.mp4", type: "video/mp4" })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const results = yield* Effect.forEach(Array.from({ length: 50 }), () => finalizeMedia(issued.body.file_key), { concurrency: "unbounded" })
        assert.deepStrictEqual([...new Set(results.map((reply) => reply.status))], [200])
        assert.strictEqual(new Set(results.map((reply) => reply.body.id)).size, 1)
        assert.strictEqual(results[0]!.body.size_bytes, png.byteLength)
        assert.strictEqual(results[0]!.body.content_type, "video/mp4")
        assert.strictEqual((yield* mediaKeys).filter((key) => key === issued.body.file_key).length, 1)
      }))

    it.effect("S3 refuses a PUT of another content type or size than signed; finalize is then 409", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("S3 refusals")
        const issued = yield* thumbnailUrl(id, { file_name: "x.png", content_type: "image/png", size_bytes: 10 })
        const wrongType = yield* putBytes(issued.body.upload_url, { "Content-Type": "image/gif", "Content-Length": "10" }, png.slice(0, 10))
        assert.strictEqual(wrongType.status, 403, wrongType.text)
        const wrongSize = yield* putBytes(issued.body.upload_url, { "Content-Type": "image/png" }, png)
        assert.strictEqual(wrongSize.status, 403, wrongSize.text)
        assertProblem(yield* finalizeThumbnail(id, issued.body.file_key), 409)
      }))

    it.effect("S3 unreachable during finalize: 503 and nothing recorded; the next call after it is back works", () =>
      Effect.gen(function*() {
        const proxy = yield* TcpProxy
        const id = yield* createCourse("S3 outage")
        const thumbnail = yield* thumbnailUrl(id, { file_name: "x.webp", content_type: "image/webp" })
        const media = yield* mediaUrl({ filename: "clip.webm", type: "video/webm" })
        assert.strictEqual((yield* putBytes(thumbnail.body.upload_url, thumbnail.body.headers, png)).status, 200)
        assert.strictEqual((yield* putBytes(media.body.upload_url, media.body.headers, png)).status, 200)

        yield* proxy.setUp(false)
        const down = yield* Effect.all([finalizeThumbnail(id, thumbnail.body.file_key), finalizeMedia(media.body.file_key)])
        for (const reply of down) {
          assertProblem(reply, 503)
          assert.strictEqual(reply.body.title, "Service Unavailable")
          assert.notInclude(reply.text, "ECONNRESET")
          assert.notInclude(reply.text, "S3RVER")
        }
        const ready = yield* call("/health/ready")
        assert.strictEqual(ready.status, 503)
        assert.deepStrictEqual(
          ready.body.checks.map((check: { name: string; status: string }) => [check.name, check.status]).sort(),
          [["database", "up"], ["storage", "down"]]
        )
        assert.isNull((yield* call(`/courses/${id}`)).body.thumbnail_key)
        assert.notInclude(yield* mediaKeys, media.body.file_key)

        yield* proxy.setUp(true)
        const thumbnailBack = yield* finalizeThumbnail(id, thumbnail.body.file_key)
        assert.strictEqual(thumbnailBack.status, 200, thumbnailBack.text)
        assert.strictEqual(thumbnailBack.body.thumbnail_key, thumbnail.body.file_key)
        const mediaBack = yield* finalizeMedia(media.body.file_key)
        assert.strictEqual(mediaBack.status, 200, mediaBack.text)
        assert.strictEqual(mediaBack.body.size_bytes, png.byteLength)
        assert.include(yield* mediaKeys, media.body.file_key)
        assert.strictEqual((yield* call("/health/ready")).status, 200)
      }))
  })
})
