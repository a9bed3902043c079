/**
 * The Studio's Content-Security-Policy on the standalone server with `STORAGE=s3` (a real
 * S3 server, s3rver) behind a CDN: the origins it names are the ones of the URLs the
 * server really hands out — a presigned upload's and a part's at the bucket, a
 * thumbnail's at the CDN (signed reads go to the bucket too: S3ObjectStore's own test) —
 * so the Studio can use them all, and nothing else.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestS3rver } from "../../storage-s3/test/TestS3rver.ts"
import { writeFakeStudio } from "./StudioBuilds.ts"
import { call } from "./TestServer.ts"
import { layerTestServerOnS3 } from "./TestServerOnS3.ts"
import { createCourse, createMultipart, mediaUrl, partUrls, putBytes, thumbnailUrl } from "./UploadCalls.ts"

const cdn = "https://cdn.example.com"

/** The sources of `directive` in `policy`. */
const sourcesOf = (policy: string, directive: string) =>
  policy.split("; ").find((part) => part.startsWith(`${directive} `))!.split(" ").slice(1)

describe("the Studio's policy on S3 behind a CDN", () => {
  layer(layerTestServerOnS3({ studioEnabled: true, studioDir: writeFakeStudio(), cdnUrl: Option.some(`${cdn}/media`) }), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("names the CDN and the bucket for files, the bucket for uploads: exactly the origins of the URLs the server hands out", () =>
      Effect.gen(function*() {
        const s3 = yield* TestS3rver
        const bucket = new URL(s3.endpoint).origin
        const page = yield* call("/studio/")
        assert.strictEqual(page.status, 200)
        const policy = page.headers.get("content-security-policy")!
        assert.deepStrictEqual(sourcesOf(policy, "img-src"), ["'self'", "data:", "blob:", cdn, bucket])
        assert.deepStrictEqual(sourcesOf(policy, "media-src"), ["'self'", "blob:", cdn, bucket])
        assert.deepStrictEqual(sourcesOf(policy, "connect-src"), ["'self'", bucket])

        // A thumbnail's upload goes to the bucket; the file is then shown from the CDN.
        const id = yield* createCourse("Policy course")
        const issued = yield* thumbnailUrl(id, { file_name: "cover.png", content_type: "image/png" })
        assert.include(sourcesOf(policy, "connect-src"), new URL(issued.body.upload_url).origin)
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).status, 200)
        const finalized = yield* call(`/courses/${id}/finalize-upload`, { method: "POST", admin: true, json: { file_key: issued.body.file_key } })
        assert.strictEqual(finalized.status, 200, finalized.text)
        assert.include(sourcesOf(policy, "img-src"), new URL(finalized.body.thumbnail_url).origin)
        // A private video's upload and a multipart part go to the bucket too.
        const video = yield* mediaUrl({ filename: "lesson.mp4", type: "video/mp4", visibility: "private" })
        assert.include(sourcesOf(policy, "connect-src"), new URL(video.body.upload_url).origin)
        const multipart = yield* createMultipart({ filename: "long.mp4", type: "video/mp4", size_bytes: 12 * 1024 * 1024 })
        assert.strictEqual(multipart.status, 201, multipart.text)
        const parts = yield* partUrls(multipart.body.upload_id, [1])
        assert.include(sourcesOf(policy, "connect-src"), new URL(parts.body.parts[0].upload_url).origin)
      }))
  })
})
