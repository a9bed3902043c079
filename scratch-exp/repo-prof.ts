import { type CourseId, CourseListRow, CourseRepo, publicAudience, Deadline } from "@coursekit/core"
import { Schema } from "effect"
const decode = Schema.decodeUnknownEffect(Schema.Array(CourseListRow))
const decodeExit = Schema.decodeUnknownExit(Schema.Array(CourseListRow))
import { PgCourseRepo, PgDatabase } from "@coursekit/postgres"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
const url = "postgres://postgres@127.0.0.1:5432/ck_scratch_prof"
const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" })
await admin.connect()
await admin.query("DROP DATABASE IF EXISTS ck_scratch_prof")
await admin.query("CREATE DATABASE ck_scratch_prof")
const rt = ManagedRuntime.make(PgCourseRepo.layer.pipe(Layer.provideMerge(PgDatabase.layer({ url: Redacted.make(url), maxConnections: 10 }))))
await rt.runPromise(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`INSERT INTO courses (title, slug, content_html, thumbnail_key) SELECT 'Course number ' || i, 'course-number-' || i, 'x', CASE WHEN i % 2 = 0 THEN 'courses/' || i || '/thumb.jpg' END FROM generate_series(1, 10000) AS i`)
}))
let mode = ""
const one = (i: number) => rt.runPromise(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cursor = 1 + (i * 7919) % 9000
  const templ = () => sql`SELECT listed.version, page.id, page.title, page.slug, page.thumbnail_key, page.status, page.publish_at FROM coursekit_catalogue_token() AS listed(version) LEFT JOIN LATERAL (SELECT id, title, slug, thumbnail_key, status, publish_at FROM courses WHERE id >= ${cursor} AND status = 'published' AND (publish_at IS NULL OR publish_at <= now()) ORDER BY id LIMIT ${11}) AS page ON true ORDER BY page.id`
  if (mode === "template") return yield* templ()
  if (mode === "deadline") return yield* templ().pipe(Deadline.within(5000, () => new Error("late")))
  if (mode === "decode") return yield* Effect.flatMap(templ(), (rows: any) => decode(rows))
  if (mode === "decodeExit") return yield* Effect.flatMap(templ(), (rows: any) => decodeExit(rows))
  if (mode === "span") return yield* templ().pipe(Effect.withSpan("x"))
  if (mode === "raw") return yield* (yield* SqlClient.SqlClient).unsafe(`SELECT listed.version, page.id, page.title, page.slug, page.thumbnail_key, page.status, page.publish_at FROM coursekit_catalogue_token() AS listed(version) LEFT JOIN LATERAL (SELECT id, title, slug, thumbnail_key, status, publish_at FROM courses WHERE id >= $1 AND status = 'published' AND (publish_at IS NULL OR publish_at <= now()) ORDER BY id LIMIT $2) AS page ON true ORDER BY page.id`, [1 + (i * 7919) % 9000, 11])
  return yield* (yield* CourseRepo).list({ cursor: (1 + (i * 7919) % 9000) as CourseId, limit: 11, audience: publicAudience })
}))
const modes = ["template", "decode", "decodeExit"]
const results = new Map<string, Array<number>>(modes.map((m) => [m, []]))
for (let round = 0; round < 7; round++) {
  for (const m of round % 2 ? [...modes].reverse() : modes) {
    mode = m
    for (let i = 0; i < 1000; i++) await one(i)
    const n = 10000
    let next = 0
    const t = process.cpuUsage()
    await Promise.all(Array.from({ length: 20 }, async () => { while (next < n) await one(next++) }))
    const u = process.cpuUsage(t)
    results.get(m)!.push((u.user + u.system) / n)
  }
}
for (const [m, v] of results) { v.sort((a, b) => a - b); console.log(m.padEnd(10), v[3]!.toFixed(1), "median µs;", v.map((x) => x.toFixed(0)).join(" ")) }
await rt.dispose()
await admin.query("DROP DATABASE ck_scratch_prof")
await admin.end()
