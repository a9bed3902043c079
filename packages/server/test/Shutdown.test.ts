import { describe, expect, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServerProcess } from "./ServerProcess.ts"

const token = "shutdown-test-token"

const start = (dataDir: string) => startServerProcess({ DATA_DIR: dataDir, ADMIN_TOKENS: token })

// A create whose body arrives in two parts, `gapMs` apart: in flight for that long.
const slowCreate = (url: string, gapMs: number, onFirstPart: () => void) =>
  new Promise<{ status: number; body: any }>((done, fail) => {
    const body = JSON.stringify({ title: "Slow upload of a body", content_html: "<p>kept</p>" })
    const request = httpRequest(`${url}/courses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (response) => {
      let text = ""
      response.on("data", (chunk) => (text += chunk))
      response.on("end", () => done({ status: response.statusCode!, body: JSON.parse(text) }))
    })
    request.on("error", fail)
    // `onFirstPart` 300 ms after the first part left: time for a loaded server to have
    // accepted the connection, which a listener that stops accepting would otherwise refuse.
    request.write(body.slice(0, 10), () => setTimeout(onFirstPart, 300))
    setTimeout(() => request.end(body.slice(10)), gapMs)
  })

const create = (url: string, title: string) =>
  fetch(`${url}/courses`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title, content_html: "<p>kept</p>" })
  }).then(async (response) => ({ status: response.status, body: await response.json() }))

describe("standalone process", () => {
  it("SIGTERM finishes requests in flight, exits 0, and keeps every acknowledged write", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "shutdown-"))
    const first = await start(dataDir)
    expect(first.output).toContainEqual(expect.stringContaining(`"level":"INFO"`))
    const before = await create(first.url, "Before the signal")
    // A request still receiving its body when SIGTERM arrives must be finished, not cut.
    const slow = slowCreate(first.url, 1_200, () => first.child.kill("SIGTERM"))
    const inFlight = Array.from({ length: 10 }, (_, i) => create(first.url, `In flight ${i}`).catch(() => undefined))
    const slowResult = await slow
    expect(slowResult.status).toBe(201)
    expect(slowResult.body.title).toBe("Slow upload of a body")
    const results = [slowResult, ...(await Promise.all(inFlight))]
    const { code } = await first.exit
    expect(code).toBe(0)
    const acknowledged = [before, ...results.filter((result) => result?.status === 201)]
    for (const result of results) {
      // Every answer that came back is whole: a created course, never a cut response.
      if (result !== undefined) expect(result.body.content_html).toBe("<p>kept</p>")
    }

    // The embedded database was closed cleanly: a new process finds every acknowledged course.
    const second = await start(dataDir)
    const listed = await fetch(`${second.url}/courses?limit=50`).then((response) => response.json())
    expect(new Set(listed.map((course: { id: number }) => course.id))).toEqual(
      new Set(acknowledged.map((result) => result!.body.id))
    )
    second.child.kill("SIGINT")
    expect((await second.exit).code).toBe(0)
  }, 60_000)
})
