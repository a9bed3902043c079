/**
 * The framework examples, each started the way its README says (one command, its own
 * process) and driven over HTTP as a user would: the host's login decides who is an
 * admin and who is a student; Coursekit answers under /api/coursekit; SIGTERM stops it.
 */
import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")

const startExample = (name: string) =>
  new Promise<{ child: ChildProcess; url: string; exit: Promise<number | null> }>((done, fail) => {
    const child = spawn(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", `examples/${name}/server.ts`], {
      cwd: root,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exit = new Promise<number | null>((settle) => child.on("exit", (code) => settle(code)))
    let output = ""
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/\S+?);/.exec(output)
      if (match) done({ child, url: match[1]!, exit })
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    void exit.then(() => fail(new Error(`${name} exited before listening:\n${output}`)))
  })

const login = async (url: string, user: string) => {
  const response = await fetch(`${url}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user }) })
  expect(response.status).toBe(200)
  return /sid=[\w-]+/.exec(response.headers.get("set-cookie") ?? "")![0]
}

const api = (url: string) => async (path: string, init: { method?: string; cookie?: string; body?: unknown } = {}) => {
  const response = await fetch(`${url}/api/coursekit${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...(init.cookie === undefined ? {} : { cookie: init.cookie }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text }
}

describe.each(["express", "fastify", "hono"])("examples/%s", (name) => {
  it("serves Coursekit under /api/coursekit with the host's login, and stops on SIGTERM", async () => {
    const { child, url, exit } = await startExample(name)
    try {
      expect((await fetch(url)).status).toBe(200)
      const admin = await login(url, "admin")
      const alice = await login(url, "alice")
      const call = api(url)

      const course = await call("/courses", { method: "POST", cookie: admin, body: { title: `${name} course`, content_html: "<h2>Welcome</h2>" } })
      expect(course.status).toBe(201)
      expect(course.headers.get("location")).toBe(`/api/coursekit/courses/${course.body.id}`)
      expect((await call("/courses", { method: "POST", cookie: alice, body: { title: "x", content_html: "" } })).status).toBe(403)
      expect((await call("/courses", { method: "POST", body: { title: "x", content_html: "" } })).status).toBe(401)

      const lesson = await call(`/courses/${course.body.id}/lessons`, {
        method: "POST",
        cookie: admin,
        body: { title: "Deep dive", content_html: "<p>Secret chapter text</p>", is_preview: false }
      })
      expect(lesson.status).toBe(201)
      const before = await call(`/public/courses/${course.body.slug}`, { cookie: alice })
      expect(before.body.lessons[0].access).toBe("locked")
      expect(before.text).not.toContain("Secret chapter text")
      expect((await call(`/admin/courses/${course.body.id}/purchases/alice`, { method: "PUT", cookie: admin })).status).toBe(200)
      const after = await call(`/public/courses/${course.body.slug}`, { cookie: alice })
      expect(after.body.lessons[0].content_html).toBe("<p>Secret chapter text</p>")
      const anonymous = await call(`/public/courses/${course.body.slug}`)
      expect(anonymous.text).not.toContain("Secret chapter text")
      expect((await call("/openapi.json")).status).toBe(200)
    } finally {
      child.kill("SIGTERM")
    }
    expect(await exit).toBe(0)
  }, 60_000)
})
