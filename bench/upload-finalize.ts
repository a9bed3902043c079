/**
 * Finalize latency against a real S3 server: `Uploads.finalizeMedia` (find the intent in
 * PostgreSQL, HEAD the object in S3, upsert the media record, mark the intent) next to a
 * bare HEAD of the same object with the AWS SDK alone (the baseline), one request at a
 * time, alternating which goes first, in one run. Prints p50/p99 of each and the p99
 * ratio. Target (issue #4): finalize p99 ≤ 2× the bare HEAD's.
 *
 * The S3 server is s3rver behind the tests' SigV4 verifier (`packages/storage-s3/test`),
 * in its own process; the database is a fresh one on the local PostgreSQL.
 */
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { FileUrl, MediaUrls, Uploads } from "@coursekit/core"
import { PgCourseRepo, PgDatabase, PgLessonRepo, PgUploadRepo } from "@coursekit/postgres"
import { S3ObjectStore } from "@coursekit/storage-s3"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase, root } from "./measure.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const samples = Number(process.env.BENCH_SAMPLES ?? 3000)
const objects = 200
const warmup = 300

// --- the S3 server ---------------------------------------------------------------------
const directory = mkdtempSync(join(tmpdir(), "bench-s3rver-"))
const bucket = "coursekit-bench"
const s3rver = spawn(
  process.execPath,
  ["--openssl-legacy-provider", join(root, "packages/storage-s3/test/S3rverProcess.ts"), directory, bucket],
  { stdio: ["pipe", "pipe", "inherit"] }
)
const endpoint = await new Promise<string>((resolve, reject) => {
  let output = ""
  s3rver.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
    if (output.includes("\n")) resolve(`http://127.0.0.1:${(JSON.parse(output.split("\n")[0]!) as { port: number }).port}`)
  })
  s3rver.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)))
})

// --- the database ------------------------------------------------------------------------
const database = `coursekit_bench_upload_${process.pid}`
const dropDatabase = await freshDatabase(serverUrl, database)
const databaseUrl = new URL(serverUrl)
databaseUrl.pathname = `/${database}`

const s3Options: S3ObjectStore.Options = {
  endpoint,
  region: "us-east-1",
  bucket,
  credentials: { accessKeyId: "S3RVER", secretAccessKey: Redacted.make("S3RVER") },
  forcePathStyle: true
}

const runtime = ManagedRuntime.make(
  Uploads.layerNoDeps().pipe(
    Layer.provide(MediaUrls.layer()),
    Layer.provide([PgCourseRepo.layer, PgUploadRepo.layer, PgLessonRepo.layer, FileUrl.layer("https://cdn.example.com")]),
    Layer.provide([S3ObjectStore.layer(s3Options), PgDatabase.layer({ url: Redacted.make(databaseUrl.toString()), maxConnections: 4 })])
  )
)

// The baseline: the SDK alone, configured as the adapter configures it.
const bare = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED"
})

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

try {
  // Objects uploaded through the real flow: presigned URL, PUT of the bytes.
  const body = new Uint8Array(64 * 1024).fill(7)
  const keys: Array<string> = []
  for (let i = 0; i < objects; i++) {
    const issued = await runtime.runPromise(Effect.gen(function*() {
      const uploads = yield* Uploads
      return yield* uploads.mediaUploadUrl({ filename: `clip-${i}.mp4`, type: "video/mp4", size_bytes: body.byteLength })
    }))
    const response = await fetch(issued.upload_url, { method: "PUT", headers: issued.headers, body })
    if (!response.ok) throw new Error(`PUT answered ${response.status}: ${await response.text()}`)
    keys.push(issued.file_key)
  }

  const finalize = (key: string) =>
    runtime.runPromise(Effect.gen(function*() {
      const uploads = yield* Uploads
      return yield* uploads.finalizeMedia({ file_key: key })
    }))
  const head = (key: string) => bare.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))

  const finalizeTimes: Array<number> = []
  const headTimes: Array<number> = []
  const time = async (run: () => Promise<unknown>, into: Array<number> | undefined) => {
    const start = performance.now()
    await run()
    into?.push(performance.now() - start)
  }
  for (let i = 0; i < warmup + samples; i++) {
    const key = keys[i % keys.length]!
    const measured = i >= warmup
    // The first round finalizes each object for the first time (insert); later ones repeat it (upsert).
    if (i % 2 === 0) {
      await time(() => head(key), measured ? headTimes : undefined)
      await time(() => finalize(key), measured ? finalizeTimes : undefined)
    } else {
      await time(() => finalize(key), measured ? finalizeTimes : undefined)
      await time(() => head(key), measured ? headTimes : undefined)
    }
  }
  headTimes.sort((a, b) => a - b)
  finalizeTimes.sort((a, b) => a - b)
  const row = (name: string, times: ReadonlyArray<number>) =>
    `${name.padEnd(30)}${percentile(times, 0.5).toFixed(2).padStart(8)}${percentile(times, 0.99).toFixed(2).padStart(8)}`
  const ratio = percentile(finalizeTimes, 0.99) / percentile(headTimes, 0.99)
  console.log(`\nUpload finalize on s3rver + PostgreSQL: ${samples} samples each, ${objects} objects of 64 KiB, one at a time\n`)
  console.log(`${"".padEnd(30)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}`)
  console.log(row("bare HEAD (AWS SDK)", headTimes))
  console.log(row("finalize (HEAD + upsert)", finalizeTimes))
  console.log(`\np99 ratio finalize ÷ bare HEAD: ${ratio.toFixed(2)}× (p50 ${(percentile(finalizeTimes, 0.5) / percentile(headTimes, 0.5)).toFixed(2)}×)`)
  console.log(`target: p99 ≤ 2.0× the bare HEAD: ${ratio <= 2 ? "met" : "missed"}`)
} finally {
  await runtime.dispose()
  bare.destroy()
  s3rver.stdin.end()
  await new Promise((done) => s3rver.once("exit", done))
  rmSync(directory, { recursive: true, force: true })
  await dropDatabase()
}
