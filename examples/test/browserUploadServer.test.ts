/**
 * examples/browser-upload's front server as its own process, started the way its npm
 * script does: requests that arrive while the service is still starting are answered
 * (503 with Retry-After; the favicon 204), no request, however odd, ends the process,
 * and SIGTERM stops it.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { connect } from "node:net"
import { resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { freePort } from "./FreePort.ts"

const root = resolve(import.meta.dirname, "../..")


/** A request line fetch cannot send (`OPTIONS *`); answers the status line. */
const rawStatusLine = (port: number, head: string) =>
  new Promise<string>((done, fail) => {
    let answer = ""
    const socket = connect(port, "127.0.0.1", () => socket.write(head))
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")))
    socket.on("end", () => done(answer.split("\r\n")[0]!))
    socket.on("error", fail)
  })

const answerOf = async (url: string) => {
  const response = await fetch(url)
  return { status: response.status, retryAfter: response.headers.get("retry-after"), type: response.headers.get("content-type"), body: await response.text() }
}

describe("examples/browser-upload's server", () => {
  it("answers requests while the service starts (favicon 204, the rest 503 + Retry-After), survives odd ones, stops on SIGTERM", async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const child = spawn(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", "examples/browser-upload/server.ts"], {
      cwd: root,
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exit = new Promise<number | null>((settle) => child.on("exit", (code) => settle(code)))
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    try {
      // The favicon and an arbitrary path, sent together from the moment the front accepts
      // connections: the service behind it takes seconds more (PGlite) to start.
      let early: [Awaited<ReturnType<typeof answerOf>>, Awaited<ReturnType<typeof answerOf>>] | undefined
      for (let attempt = 0; early === undefined && attempt < 3_000 && child.exitCode === null; attempt++) {
        early = await Promise.all([answerOf(`${url}/favicon.ico`), answerOf(`${url}/some/arbitrary/path?x=1`)]).catch(() => undefined)
        if (early === undefined) await sleep(20)
      }
      expect(early, output).toBeDefined()
      const [favicon, arbitrary] = early!
      expect(favicon).toEqual({ status: 204, retryAfter: null, type: null, body: "" })
      expect(arbitrary.status).toBe(503)
      expect(arbitrary.retryAfter).toBe("1")
      expect(arbitrary.type).toBe("application/problem+json")
      expect(JSON.parse(arbitrary.body)).toEqual({ type: "about:blank", title: "Service Unavailable", status: 503, detail: "Coursekit is starting; retry in a moment." })
      expect(output).not.toContain("listening on")

      // Still up; once the service is, the same requests reach it.
      // The example's own line: the service inside it logs that it is listening too, a moment earlier.
      const listening = `Browser upload example listening on ${url}`
      for (let waited = 0; !output.includes(listening) && waited < 60_000 && child.exitCode === null; waited += 50) await sleep(50)
      expect(output).toContain(listening)
      expect((await answerOf(`${url}/favicon.ico`)).status).toBe(204)
      const forwarded = await answerOf(`${url}/some/arbitrary/path`)
      expect(forwarded.status).toBe(404)
      expect(forwarded.retryAfter).toBeNull()
      expect(await answerOf(`${url}/courses`)).toMatchObject({ status: 200, body: "[]" })
      // Targets that are no path of this origin are refused, not forwarded.
      expect(await rawStatusLine(port, "OPTIONS * HTTP/1.1\r\nHost: example\r\nConnection: close\r\n\r\n")).toBe("HTTP/1.1 400 Bad Request")
      expect(await rawStatusLine(port, "GET http://example.org/courses HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n")).toBe("HTTP/1.1 400 Bad Request")
      expect((await answerOf(url)).status).toBe(200)
      expect(child.exitCode).toBeNull()
    } finally {
      child.kill("SIGTERM")
    }
    expect(await exit).toBe(0)
  }, 120_000)
})
