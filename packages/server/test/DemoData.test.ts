/**
 * `DEMO=1` and `--demo` (issue #37): an empty data directory gets the demo once the server
 * listens — two courses with sections, a free preview with a public video, a paid lesson
 * with a private one, a drip lesson, a draft lesson, a thumbnail — and `demo-learner`'s
 * printed viewer token opens what they bought; a database with courses is left as it is.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { lectureClip } from "../src/DemoData.ts"
import { type StartedProcess, startProcess } from "./ServerProcess.ts"

const start = (dataDir: string, env: Readonly<Record<string, string>>, args: ReadonlyArray<string> = []) =>
  startProcess(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", "packages/server/src/main.ts", ...args], { DATA_DIR: dataDir, ...env })

/** The demo's log lines once they are out (JSON lines: not a terminal). */
const demoLines = async (server: StartedProcess) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const lines = server.output.flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { message: string; level: string }
        return entry.message.startsWith("Demo: ") ? [entry] : []
      } catch {
        return []
      }
    })
    if (lines.length > 0 && (lines.some((entry) => entry.level === "WARN") || lines.some((entry) => entry.message.includes("viewer token")))) return lines
    if (Date.now() > deadline) throw new Error(`no demo lines:\n${server.output.join("\n")}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const stop = async (server: StartedProcess) => {
  server.child.kill("SIGTERM")
  expect((await server.exit).code).toBe(0)
}

interface PublicLesson {
  readonly title: string
  readonly access: string
  readonly content_html: string | null
  readonly video_url: string | null
  readonly available_at: string | null
}

describe("the demo", () => {
  it("fills an empty data directory (--demo): courses, sections, preview, paid, drip and draft lessons, media; the printed token opens what demo-learner bought", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "demo-"))
    const server = await start(dataDir, {}, ["--demo"])
    try {
      const lines = await demoLines(server)
      expect(lines.map((entry) => entry.level)).toEqual(["INFO", "INFO"])
      expect(lines[0]!.message).toBe("Demo: added “Bread at home” and “Knife skills”; demo-learner bought “Bread at home”.")
      const token = /viewer token \(30 days\): (\S+)$/.exec(lines[1]!.message)![1]!
      const admin = { authorization: `Bearer ${readFileSync(join(dataDir, "admin-token"), "utf8").trim()}` }
      const courses = (await (await fetch(`${server.url}/courses`, { headers: admin })).json()) as Array<{ id: number; title: string; status: string }>
      expect(courses.map(({ title, status }) => [title, status])).toEqual([["Bread at home", "published"], ["Knife skills", "published"]])

      const read = async (headers: Record<string, string>) => {
        const response = await fetch(`${server.url}/public/courses/bread-at-home`, { headers })
        expect(response.status).toBe(200)
        return (await response.json()) as { purchased: boolean; thumbnail_url: string | null; sections: Array<{ title: string; lessons: Array<PublicLesson> }> }
      }
      const visitor = await read({})
      const buyer = await read({ authorization: `Bearer ${token}` })
      expect([visitor.purchased, buyer.purchased]).toEqual([false, true])
      const outline = (course: typeof buyer) => course.sections.map(({ title, lessons }) => [title, lessons.map((lesson) => [lesson.title, lesson.access])])
      // The draft lesson is no learner's.
      expect(outline(visitor)).toEqual([
        ["Week 1: The dough", [["Welcome", "preview"], ["Kneading by hand", "locked"]]],
        ["Week 2: Shaping and baking", [["Shaping loaves", "locked"]]]
      ])
      expect(outline(buyer)).toEqual([
        ["Week 1: The dough", [["Welcome", "preview"], ["Kneading by hand", "purchased"]]],
        ["Week 2: Shaping and baking", [["Shaping loaves", "upcoming"]]]
      ])
      const [welcome, kneading] = buyer.sections[0]!.lessons
      const shaping = buyer.sections[1]!.lessons[0]!
      expect(Date.parse(shaping.available_at!) - Date.now()).toBeGreaterThan(6.9 * 86_400_000)
      expect(shaping.content_html).toBeNull()
      // The preview's video is public; the paid lesson's is private, signed, and plays.
      expect(welcome!.video_url).toMatch(/\/files\/media\/[^?]+\.mp4$/)
      expect(kneading!.video_url).toMatch(/\/files\/private\/media\/[^?]+\.mp4\?expires=\d+&signature=/)
      // The clip drawn at start (Mp4Video.browser.test.ts plays it in chromium).
      const clip = lectureClip()
      const played = await fetch(kneading!.video_url!)
      expect([played.status, played.headers.get("content-type")]).toEqual([200, "video/mp4"])
      expect(Buffer.from(await played.arrayBuffer()).equals(clip)).toBe(true)
      const thumbnail = await fetch(buyer.thumbnail_url!)
      expect([thumbnail.status, thumbnail.headers.get("content-type")]).toEqual([200, "image/png"])
      expect(Buffer.from(await thumbnail.arrayBuffer()).subarray(1, 4).toString()).toBe("PNG")
    } finally {
      await stop(server)
    }

    // Again on the same data (DEMO=1 this time): it has courses, so nothing is added.
    const again = await start(dataDir, { DEMO: "1" })
    try {
      const lines = await demoLines(again)
      expect(lines.map((entry) => [entry.level, entry.message])).toEqual([[
        "WARN",
        "Demo: this data directory already has courses, so nothing was added; the demo fills only an empty one (a new DATA_DIR)."
      ]])
      const admin = { authorization: `Bearer ${readFileSync(join(dataDir, "admin-token"), "utf8").trim()}` }
      expect(((await (await fetch(`${again.url}/courses`, { headers: admin })).json()) as Array<unknown>).length).toBe(2)
    } finally {
      await stop(again)
    }
  }, 120_000)

  it("with JWKS_URL and no JWT_SECRET, says why no viewer token is printed", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "demo-jwks-"))
    // Nothing listens there: the demo signs nothing, so the keys are never fetched.
    const server = await start(dataDir, { JWKS_URL: "http://127.0.0.1:9/jwks.json" }, ["--demo"])
    try {
      expect((await demoLines(server)).map((entry) => [entry.level, entry.message])).toEqual([
        ["INFO", "Demo: added “Bread at home” and “Knife skills”; demo-learner bought “Bread at home”."],
        ["INFO", "Demo: no viewer token printed: viewer tokens are checked against JWKS_URL, so sign one for sub \"demo-learner\" with your identity provider."]
      ])
    } finally {
      await stop(server)
    }
  }, 120_000)

  it("leaves a database alone whose only course is a draft (DEMO=1)", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "demo-draft-"))
    const first = await start(dataDir, {})
    try {
      const admin = { authorization: `Bearer ${readFileSync(join(dataDir, "admin-token"), "utf8").trim()}`, "content-type": "application/json" }
      const created = await fetch(`${first.url}/courses`, { method: "POST", headers: admin, body: JSON.stringify({ title: "Unfinished", content_html: "<p>Soon.</p>", status: "draft" }) })
      expect(created.status).toBe(201)
    } finally {
      await stop(first)
    }
    const again = await start(dataDir, { DEMO: "1" })
    try {
      expect((await demoLines(again)).map((entry) => entry.level)).toEqual(["WARN"])
      const admin = { authorization: `Bearer ${readFileSync(join(dataDir, "admin-token"), "utf8").trim()}` }
      const titles = ((await (await fetch(`${again.url}/courses`, { headers: admin })).json()) as Array<{ title: string }>).map(({ title }) => title)
      expect(titles).toEqual(["Unfinished"])
    } finally {
      await stop(again)
    }
  }, 120_000)
})
