import { GetObjectCommand, ListMultipartUploadsCommand, S3Client } from "@aws-sdk/client-s3"
import { Effect, Layer, Redacted } from "effect"
import { Readable } from "node:stream"
import { accessKeyId, secretAccessKey, TestS3rver } from "../../storage-s3/test/TestS3rver.ts"
import { sha256OfStream } from "./LargeFile.ts"
import { multipartResumeSuite, resumeSettings, StoreProbe } from "./MultipartResumeSuite.ts"
import { layerTestServerOnS3 } from "./TestServerOnS3.ts"

// The 200 MiB multipart suite on the standalone server with STORAGE=s3 against a real S3
// server (s3rver, SigV4 verified, the multipart operations it lacks emulated in front of
// it): the part PUTs go straight to the S3 server; the test reads the bucket with the SDK.

const layerProbe = Layer.effect(StoreProbe, Effect.gen(function*() {
  const s3 = yield* TestS3rver
  const client = yield* Effect.acquireRelease(
    Effect.sync(() =>
      new S3Client({
        endpoint: s3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey: Redacted.value(secretAccessKey) }
      })
    ),
    (client) => Effect.sync(() => client.destroy())
  )
  return StoreProbe.of({
    storedSha256: (key) =>
      Effect.promise(async () => {
        const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))
        if (!(object.Body instanceof Readable)) throw new Error("GetObject answered no Node stream")
        return sha256OfStream(object.Body)
      }),
    openUploads: Effect.promise(async () => {
      const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))
      return (listed.Uploads ?? []).map((upload) => upload.UploadId ?? "")
    })
  })
}))

multipartResumeSuite("PGlite, S3 on s3rver", layerProbe.pipe(Layer.provideMerge(layerTestServerOnS3(resumeSettings))), {
  // The part's length is signed: another one breaks the signature.
  overPartSize: { status: 403, says: "<Code>SignatureDoesNotMatch</Code>" },
  expired: { status: 403, says: "<Message>Request has expired</Message>" }
})
