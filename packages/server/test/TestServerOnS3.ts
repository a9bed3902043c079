/**
 * The standalone server with `STORAGE=s3` against a real S3 server (s3rver with SigV4
 * verified in front, `storage-s3/test/TestS3rver.ts`), for the S3 HTTP tests.
 */
import { type Duration, Effect, Layer } from "effect"
import { accessKeyId, secretAccessKey, TestS3rver } from "../../storage-s3/test/TestS3rver.ts"
import { type ServerSettings, StorageSettings } from "../src/ServerConfig.ts"
import { layerTestServerFrom, testSettings } from "./TestServer.ts"

/** The test S3 server's bucket as the service's store, reached at `endpoint` (default the server's own, path-style). */
export const s3rverStorage = (
  s3: TestS3rver["Service"],
  options: { readonly endpoint?: string; readonly timeout: Duration.Input }
): StorageSettings =>
  StorageSettings.s3({
    endpoint: options.endpoint ?? s3.endpoint,
    region: "us-east-1",
    bucket: s3.bucket,
    credentials: { accessKeyId, secretAccessKey },
    forcePathStyle: true,
    timeout: options.timeout
  })

/**
 * The standalone server for `overrides` on a fresh s3rver: the {@link TestServer}, the
 * server's services (`Uploads`, `UploadSweep`, …) and the {@link TestS3rver}.
 */
export const layerTestServerOnS3 = (overrides: Partial<ServerSettings> = {}) =>
  Layer.unwrap(Effect.gen(function*() {
    const s3 = yield* TestS3rver
    return layerTestServerFrom(testSettings({ storage: s3rverStorage(s3, { timeout: "10 seconds" }), ...overrides }))
  })).pipe(Layer.provideMerge(TestS3rver.layer()))
