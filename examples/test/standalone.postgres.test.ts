/**
 * examples/standalone: `npm run example:standalone` — the server configured by
 * standalone.env for PostgreSQL and S3 — started as its own process, pointed at a fresh
 * database on the test PostgreSQL and at an S3 server on loopback (s3rver behind a SigV4
 * verifier; variables set in the environment win over the file), then driven over HTTP
 * through an upload with a real PUT to S3.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { accessKeyId, secretAccessKey, TestS3rver } from "../../packages/storage-s3/test/TestS3rver.ts"

const root = resolve(import.meta.dirname, "../..")
const serverUrl = process.env.TEST_DATABASE_URL
const adminToken = "example-admin-token-change-me-0123456789"

/** The node arguments of `npm run example:standalone`, as package.json has them. */
const scriptArgs = () => {
  const script: string = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")).scripts["example:standalone"]
  const prefix = "exec sh scripts/node24.sh node "
  assert.strictEqual(script.slice(0, prefix.length), prefix, script)
  return script.slice(prefix.length).split(" ")
}

const databaseName = `coursekit_example_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
const onServer = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, statement).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    Effect.orDie
  )
const withDatabase = (url: string) => {
  const target = new URL(url)
  target.pathname = `/${databaseName}`
  return target.toString()
}

const layerDatabase = (url: string) =>
  Layer.effectDiscard(Effect.acquireRelease(
    onServer(url, (sql) => sql`CREATE DATABASE ${sql(databaseName)}`),
    () => onServer(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(databaseName)} WITH (FORCE)`)
  ))

if (serverUrl !== undefined) {
  describe("examples/standalone (PostgreSQL + S3)", () => {
    layer(Layer.merge(layerDatabase(serverUrl), TestS3rver.layer()), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("starts from standalone.env and stores on PostgreSQL and S3", () =>
        Effect.gen(function*() {
          const s3 = yield* TestS3rver
          const started = yield* Effect.acquireRelease(
            Effect.callback<{ child: ChildProcess; url: string; output: Array<string> }>((resume) => {
              const output: Array<string> = []
              const child = spawn(process.execPath, scriptArgs(), {
                cwd: root,
                env: {
                  ...process.env,
                  PORT: "0",
                  HOST: "127.0.0.1",
                  DATABASE_URL: withDatabase(serverUrl),
                  S3_ENDPOINT: s3.endpoint,
                  S3_BUCKET: s3.bucket,
                  S3_ACCESS_KEY_ID: accessKeyId,
                  S3_SECRET_ACCESS_KEY: Redacted.value(secretAccessKey),
                  S3_PUBLIC_URL: `${s3.endpoint}/${s3.bucket}`
                },
                stdio: ["ignore", "pipe", "pipe"]
              })
              child.stdout!.on("data", (chunk: Buffer) => {
                output.push(chunk.toString())
                const match = /listening on (http:\/\/[^;]+);/.exec(output.join(""))
                if (match) resume(Effect.succeed({ child, url: match[1]!, output }))
              })
              child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()))
              child.once("exit", (code) => resume(Effect.die(new Error(`exited with ${code}:\n${output.join("")}`))))
            }),
            ({ child }) =>
              Effect.callback<void>((resume) => {
                if (child.exitCode !== null) return resume(Effect.void)
                child.once("exit", () => resume(Effect.void))
                child.kill("SIGTERM")
              })
          )
          const call = (path: string, init: RequestInit = {}) =>
            Effect.promise(async () => {
              const response = await fetch(`${started.url}${path}`, {
                ...init,
                headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", ...(init.headers as Record<string, string>) }
              })
              return { status: response.status, body: await response.json() as any }
            })

          const ready = yield* call("/health/ready")
          assert.strictEqual(ready.status, 200, JSON.stringify(ready.body))
          const course = yield* call("/courses", { method: "POST", body: JSON.stringify({ title: "Standalone example", content_html: "<p>Hi</p>" }) })
          assert.strictEqual(course.status, 201)
          const issued = yield* call(`/courses/${course.body.id}/upload-url`, {
            method: "POST",
            body: JSON.stringify({ file_name: "cover.png", content_type: "image/png", size_bytes: 4 })
          })
          assert.strictEqual(issued.status, 200)
          assert.match(issued.body.file_key, new RegExp(`^courses/${course.body.id}/[0-9a-f-]{36}\\.png$`))
          assert.strictEqual(issued.body.upload_url.split("?")[0], `${s3.endpoint}/${s3.bucket}/${issued.body.file_key}`)
          const put = yield* Effect.promise(() => fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: new Uint8Array([1, 2, 3, 4]) }))
          assert.strictEqual(put.status, 200)
          const finalized = yield* call(`/courses/${course.body.id}/finalize-upload`, { method: "POST", body: JSON.stringify({ file_key: issued.body.file_key }) })
          assert.strictEqual(finalized.status, 200)
          assert.strictEqual(finalized.body.thumbnail_url, `${s3.endpoint}/${s3.bucket}/${issued.body.file_key}`)

          // The rows are in the PostgreSQL database the environment named.
          const rows = yield* onServer(withDatabase(serverUrl), (sql) => sql`SELECT title, thumbnail_key FROM coursekit.courses`)
          assert.deepStrictEqual(rows, [{ title: "Standalone example", thumbnail_key: issued.body.file_key }])
          const media = yield* onServer(withDatabase(serverUrl), (sql) => sql`SELECT size_bytes FROM coursekit.media_files`)
          assert.strictEqual(Number((media as Array<{ size_bytes: unknown }>)[0]?.size_bytes), 4)
        }).pipe(Effect.scoped))
    })
  })
}
