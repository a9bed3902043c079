/**
 * docs/embedding.md, "Sharing your app's PostgreSQL database": the Express example started
 * as the docs say (`DATABASE_URL` naming the host app's own database, which already has
 * `courses`, `lessons` and `purchases` tables of its own, and `DATABASE_SCHEMA`), driven
 * over HTTP by the host's login; afterwards the host's tables and rows are exactly as
 * they were and Coursekit's course is in its schema.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"

const root = resolve(import.meta.dirname, "../..")
const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

const hostTables = [
  "CREATE TABLE courses (id serial PRIMARY KEY, name text NOT NULL, price_cents integer)",
  "CREATE TABLE lessons (id serial PRIMARY KEY, course_id integer REFERENCES courses (id), body text)",
  "CREATE TABLE purchases (id serial PRIMARY KEY, customer text NOT NULL, course_id integer REFERENCES courses (id))",
  "INSERT INTO courses (name, price_cents) VALUES ('The host''s own course', 4900), ('Another', NULL)",
  "INSERT INTO lessons (course_id, body) VALUES (1, 'Host lesson')",
  "INSERT INTO purchases (customer, course_id) VALUES ('alice@example.com', 1)"
]

/** The host's three tables, rows and sequences as PostgreSQL writes them, and every object in public. */
const hostState = async (client: pg.Client) => {
  const { rows } = await client.query(`
    SELECT (SELECT json_agg(c.relname ORDER BY c.relname) FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace)::text AS objects,
           (SELECT json_agg(x::text ORDER BY x.id) FROM public.courses x)::text AS courses,
           (SELECT json_agg(x::text ORDER BY x.id) FROM public.lessons x)::text AS lessons,
           (SELECT json_agg(x::text ORDER BY x.id) FROM public.purchases x)::text AS purchases,
           (SELECT last_value FROM public.courses_id_seq)::text AS sequence`)
  return rows[0]
}

if (serverUrl !== undefined) {
  describe("examples/express on the host app's own PostgreSQL database", () => {
    it("runs beside the host's courses, lessons and purchases and leaves them exactly as they were", async () => {
      const database = `coursekit_host_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
      const admin = new pg.Client({ connectionString: serverUrl })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${database}`)
      const target = new URL(serverUrl)
      target.pathname = `/${database}`
      const host = new pg.Client({ connectionString: target.toString() })
      await host.connect()
      try {
        for (const statement of hostTables) await host.query(statement)
        const before = await hostState(host)

        const child = spawn(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", "examples/express/server.ts"], {
          cwd: root,
          env: {
            ...process.env,
            PORT: "0",
            DATA_DIR: mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "example-express-shared-")),
            DATABASE_URL: target.toString(),
            DATABASE_SCHEMA: "coursekit"
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        const exited = new Promise<number | null>((settle) => child.on("exit", settle))
        try {
          const url = await new Promise<string>((done, fail) => {
            let output = ""
            const read = (chunk: Buffer) => {
              output += chunk.toString()
              const match = /listening on (http:\/\/\S+?);/.exec(output)
              if (match) done(match[1]!)
            }
            child.stdout!.on("data", read)
            child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
            void exited.then(() => fail(new Error(`the example exited before listening:\n${output}`)))
          })
          const login = await fetch(`${url}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user: "admin" }) })
          const cookie = /sid=[\w-]+/.exec(login.headers.get("set-cookie") ?? "")![0]
          const created = await fetch(`${url}/api/coursekit/courses`, {
            method: "POST",
            headers: { "content-type": "application/json", cookie },
            body: JSON.stringify({ title: "Coursekit's course", content_html: "<p>Hi</p>" })
          })
          expect(created.status).toBe(201)
          const course = await created.json() as { id: number; slug: string }
          const listed = await (await fetch(`${url}/api/coursekit/courses`)).json() as Array<{ title: string }>
          expect(listed.map((item) => item.title)).toEqual(["Coursekit's course"])
          expect((await fetch(`${url}/api/coursekit/public/courses/${course.slug}`)).status).toBe(200)
        } finally {
          child.kill("SIGTERM")
          expect(await exited).toBe(0)
        }

        expect(await hostState(host)).toEqual(before)
        const { rows } = await host.query("SELECT title FROM coursekit.courses")
        expect(rows).toEqual([{ title: "Coursekit's course" }])
      } finally {
        await host.end()
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
        await admin.end()
      }
    }, 120_000)
  })
} else if (required) {
  describe("examples/express on the host app's own PostgreSQL database", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
