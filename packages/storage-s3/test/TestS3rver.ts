/**
 * A real S3-compatible server for one test file: s3rver in a child process
 * (`S3rverProcess.ts`) on 127.0.0.1, a free port, its data in a temporary directory
 * removed with the layer, one bucket created, SigV4 signatures verified in front of it
 * (see `SigV4.ts` for why s3rver needs that).
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { type ChildProcessByStdio, spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable, Writable } from "node:stream"

/** s3rver's built-in account. */
export const accessKeyId = "S3RVER"
export const secretAccessKey: Redacted.Redacted<string> = Redacted.make("S3RVER")

type Child = ChildProcessByStdio<Writable, Readable, null>

/** Where the test server listens. */
export class TestS3rver extends Context.Service<TestS3rver, {
  /** `http://127.0.0.1:<port>`: path-style addressing. */
  readonly endpoint: string
  readonly bucket: string
}>()("@coursekit/storage-s3/test/TestS3rver") {
  /**
   * Starts the server. `verifySignatures: false` leaves out the SigV4 check, to see
   * what s3rver enforces by itself; `listPageSize` caps the multipart listings' pages
   * (S3 may answer fewer than asked), so tests see them paginate.
   */
  static readonly layer = (
    options: { readonly verifySignatures?: boolean; readonly listPageSize?: number } = {}
  ): Layer.Layer<TestS3rver> =>
    Layer.effect(TestS3rver, Effect.gen(function*() {
      const bucket = "coursekit-test"
      const directory = yield* Effect.acquireRelease(
        Effect.promise(() => fs.mkdtemp(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "s3rver-"))),
        (directory) => Effect.promise(() => fs.rm(directory, { recursive: true, force: true }))
      )
      const args = [
        "--openssl-legacy-provider",
        join(import.meta.dirname, "S3rverProcess.ts"),
        directory,
        bucket,
        ...(options.verifySignatures === false ? ["--no-verify"] : []),
        ...(options.listPageSize === undefined ? [] : [`--list-page-size=${options.listPageSize}`])
      ]
      const child = yield* Effect.acquireRelease(
        Effect.sync((): Child => spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] })),
        (child) =>
          Effect.callback<void>((resume) => {
            if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
            child.once("exit", () => resume(Effect.void))
            // Closing stdin asks it to stop; it exits once its sockets are closed.
            child.stdin.end()
          }).pipe(
            Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.sync(() => void child.kill("SIGKILL")) })
          )
      )
      const port = yield* Effect.callback<number>((resume) => {
        let output = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk
          const line = output.split("\n")[0]
          if (output.includes("\n") && line !== undefined) resume(Effect.sync(() => (JSON.parse(line) as { port: number }).port))
        })
        child.once("exit", (code) => resume(Effect.die(new Error(`s3rver exited with ${code} before listening`))))
      }).pipe(Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die(new Error("s3rver did not start")) }))
      return TestS3rver.of({ endpoint: `http://127.0.0.1:${port}`, bucket })
    }))
}
