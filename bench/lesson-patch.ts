/**
 * PATCH /courses/{id}/lessons/{lesson_id} of a ~20 KB lesson with revisions on (issue
 * #32: versions, If-Match, revisions) against the same PATCH before issue #32, one
 * request at a time, alternating which server goes first, in one run. Prints p50/p99 of
 * each, the p99 ratio, the CPU time per PATCH of each server process and of its
 * database's PostgreSQL backends, and the statements one PATCH runs on each. Target
 * (issue #32): p99 ≤ 1.3× before.
 *
 * "Before" is the real old code: commit `ccf1189` (it has `version`, no revisions, no
 * If-Match), extracted with `git archive` into a temporary directory, given a
 * node_modules of symlinks to this checkout's installed packages except `@coursekit/*`,
 * which point at its own `packages/*`, and built with `npm run build` like this
 * checkout. Both standalone servers run as built JavaScript, each on a fresh database.
 *
 * Every PATCH rewords a sentence of the body (no Coursekit-Autosave, no If-Match), so
 * the new server appends a revision each time and, past 100 (`REVISIONS_KEEP`), deletes
 * the oldest: the steady state of a lesson being edited. The run checks that every
 * answer is a 200 one version up, that the old server has no revision routes, and that
 * the new one keeps 100 revisions of the lesson, the newest at its last version.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import pg from "pg"
import { coursekitOn, cpuMicrosOf, freshDatabase, root, benchWords, seededText, type Server, startServer, stopServer, withDatabase } from "./measure.ts"
import { printStatementsOf, statementLog } from "./pgStatementLog.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const samples = Number(process.env.BENCH_SAMPLES ?? 3000)
const warmup = 300
const beforeCommit = "ccf1189"
const keep = 100
const auth = { authorization: "Bearer bench-admin-token" }

const fail = (message: string): never => {
  throw new Error(`lesson-patch: ${message}`)
}

// --- the old code ----------------------------------------------------------------------------

/**
 * `beforeCommit` extracted and built in a temporary directory. Its node_modules is a
 * directory of links, not a link to ours: ours holds `@coursekit/*` as relative links into
 * our own packages/, which would run the new code under the old name.
 */
const buildBefore = (): string => {
  const directory = mkdtempSync(join(tmpdir(), "coursekit-bench-before-"))
  const run = (command: string, args: ReadonlyArray<string>, cwd: string) => {
    // Our Node first on PATH: the old checkout's scripts/node24.sh then uses it as it is.
    const result = spawnSync(command, args, {
      cwd,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` }
    })
    if (result.status !== 0) fail(`${command} ${args.join(" ")} in ${cwd} failed:\n${result.stdout}\n${result.stderr}`.slice(-4000))
  }
  try {
    run("sh", ["-c", `git -C '${root}' archive ${beforeCommit} | tar -x -C '${directory}'`], root)
    const modules = join(directory, "node_modules")
    mkdirSync(join(modules, "@coursekit"), { recursive: true })
    for (const entry of readdirSync(join(root, "node_modules"))) {
      if (entry === "@coursekit" || entry === ".package-lock.json") continue
      symlinkSync(join(root, "node_modules", entry), join(modules, entry))
    }
    for (const name of readdirSync(join(directory, "packages"))) {
      symlinkSync(join("..", "..", "packages", name), join(modules, "@coursekit", name))
      if (realpathSync(join(modules, "@coursekit", name)) !== realpathSync(join(directory, "packages", name))) {
        fail(`@coursekit/${name} does not resolve into ${directory}`)
      }
    }
    console.log(`building ${beforeCommit} in ${directory}`)
    run("npm", ["run", "build"], directory)
    return directory
  } catch (error) {
    rmSync(directory, { recursive: true, force: true })
    throw error
  }
}

// --- the lesson -------------------------------------------------------------------------------

const { random, pick, sentence } = seededText(32)
const words = benchWords

/** A block of the lesson: its sentences, and how they are written as HTML. */
interface Block {
  readonly sentences: Array<string>
  readonly html: (sentences: ReadonlyArray<string>) => string
}
const block = (): Block => {
  const kind = random()
  const word = pick(words)
  const link = Math.floor(random() * 1000)
  if (kind < 0.1) return { sentences: [sentence()], html: ([s]) => `<h2>${s!.slice(0, -1)}</h2>` }
  if (kind < 0.16) return { sentences: [sentence()], html: ([s]) => `<h3>${s!.slice(0, -1)}</h3>` }
  if (kind < 0.26) {
    const tag = random() < 0.5 ? "ul" : "ol"
    return { sentences: [sentence(), sentence(), sentence()], html: (s) => `<${tag}>${s.map((item) => `<li>${item}</li>`).join("")}</${tag}>` }
  }
  if (kind < 0.34) {
    return {
      sentences: [sentence(), sentence()],
      html: ([a, b]) => `<p>${a} <a href="https://example.com/notes/${link}">${word}</a> ${b}</p>`
    }
  }
  return { sentences: [sentence(), sentence(), sentence()], html: ([a, b, c]) => `<p>${a} <strong>${word}</strong> ${b} <em>${c}</em></p>` }
}
const blocks: Array<Block> = []
const render = () => blocks.map((b) => b.html(b.sentences)).join("")
while (render().length < 20_000) blocks.push(block())
/**
 * The next version of the body: one sentence of one block reworded with as many words, so
 * the body changes on every PATCH and stays ~20 KB however many edits are made.
 */
const edit = () => {
  for (;;) {
    const target = pick(blocks)
    const at = Math.floor(random() * target.sentences.length)
    const old = target.sentences[at]!
    const reworded = sentence(old.split(" ").length)
    if (reworded === old) continue
    target.sentences[at] = reworded
    return render()
  }
}

// --- servers ----------------------------------------------------------------------------------

interface Target {
  readonly server: Server
  readonly path: string
  readonly database: string
  version: number
  readonly times: Array<number>
}

const call = async (server: Server, path: string, init: { method?: string; json?: unknown } = {}) => {
  const response = await fetch(server.url + path, {
    method: init.method ?? "GET",
    headers: init.json === undefined ? auth : { ...auth, "content-type": "application/json" },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

/** The course and lesson `server` is measured on, with the first body; checks what it stores. */
const setUp = async (server: Server, database: string, contentHtml: string): Promise<Target> => {
  const course = await call(server, "/courses", { method: "POST", json: { title: "Sourdough, edited", content_html: "" } })
  if (course.status !== 201) fail(`${server.name}: POST /courses answered ${course.status}: ${course.body}`)
  const courseId = JSON.parse(course.body).id
  const lesson = await call(server, `/courses/${courseId}/lessons`, { method: "POST", json: { title: "Shaping", content_html: contentHtml } })
  if (lesson.status !== 201) fail(`${server.name}: POST lessons answered ${lesson.status}: ${lesson.body}`)
  const created = JSON.parse(lesson.body)
  // The bodies are what the sanitizer keeps as they are: the stored body is the one sent.
  if (created.content_html !== contentHtml) fail(`${server.name}: the sanitizer rewrote the lesson's body`)
  return { server, database, path: `/courses/${courseId}/lessons/${created.id}`, version: created.version, times: [] }
}

/** The revision routes `server`'s OpenAPI document lists. */
const revisionPaths = async (server: Server) => {
  const document = await call(server, "/openapi.json")
  if (document.status !== 200) fail(`${server.name}: /openapi.json answered ${document.status}`)
  return Object.keys(JSON.parse(document.body).paths).filter((path) => path.includes("/revisions"))
}

/** CPU time so far of `target`'s server and of the PostgreSQL backends connected to its database, in µs. */
interface CpuSnapshot {
  readonly server: number
  readonly backends: ReadonlyMap<number, number>
}
const activity = new pg.Client({ connectionString: serverUrl })
const cpuOf = async (target: Target): Promise<CpuSnapshot> => {
  const { rows } = await activity.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [target.database])
  return { server: cpuMicrosOf(target.server.child.pid!), backends: new Map(rows.map(({ pid }) => [pid, cpuMicrosOf(pid)])) }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const beforeDirectory = buildBefore()
// The new code first: `targets` and the rows below keep this order.
const specs = [
  { name: "after", script: "packages/server/dist/main.js", database: `coursekit_bench_patch_after_${process.pid}` },
  { name: "before", script: join(beforeDirectory, "packages/server/dist/main.js"), database: `coursekit_bench_patch_before_${process.pid}` }
] as const
const envOf = (databaseUrl: string) => ({ ...coursekitOn(databaseUrl), REVISIONS_KEEP: String(keep) })
const drops: Array<() => Promise<void>> = []
const running: Array<Server> = []
try {
  await activity.connect()
  for (const [index, spec] of specs.entries()) {
    drops.push(await freshDatabase(serverUrl, spec.database))
    running.push(await startServer(spec.name, spec.script, envOf(withDatabase(serverUrl, spec.database)), 4240 + index))
  }
  const [after, before] = running as [Server, Server]

  if (!(await revisionPaths(after)).includes("/courses/{id}/lessons/{lesson_id}/revisions")) {
    fail("the new server lists no lesson revisions: is packages/server/dist built from this checkout?")
  }
  const oldRevisionPaths = await revisionPaths(before)
  if (oldRevisionPaths.length > 0) fail(`the old server lists ${oldRevisionPaths.join(", ")}: it runs the new code`)

  const first = render()
  const targets = [await setUp(after, specs[0].database, first), await setUp(before, specs[1].database, first)] as const
  const patch = async (target: Target, body: string, measured: boolean) => {
    const start = performance.now()
    const response = await fetch(target.server.url + target.path, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body
    })
    const text = await response.text()
    if (measured) target.times.push(performance.now() - start)
    if (response.status !== 200) fail(`${target.server.name}: PATCH answered ${response.status}: ${text.slice(0, 500)}`)
    const version = JSON.parse(text).version
    if (version !== target.version + 1) fail(`${target.server.name}: PATCH left version ${version} after ${target.version}`)
    target.version = version
  }
  let bytes = 0
  let cpuBefore: ReadonlyArray<CpuSnapshot> = []
  for (let i = 0; i < warmup + samples; i++) {
    if (i === warmup) cpuBefore = await Promise.all(targets.map(cpuOf))
    const contentHtml = edit()
    bytes += contentHtml.length
    const body = JSON.stringify({ content_html: contentHtml })
    for (const target of i % 2 === 0 ? targets : [...targets].reverse()) await patch(target, body, i >= warmup)
  }
  const cpuAfter = await Promise.all(targets.map(cpuOf))
  // CPU per measured PATCH, in µs: the server process, and its database's backends.
  const cpuPerPatch = targets.map((_, index) => {
    const [start, end] = [cpuBefore[index]!, cpuAfter[index]!]
    let postgres = 0
    for (const [pid, micros] of end.backends) postgres += micros - (start.backends.get(pid) ?? 0)
    return { server: (end.server - start.server) / samples, postgres: postgres / samples }
  })

  // The measured PATCHes wrote revisions and retention held them at `keep` (pages of 50, by their Link).
  const items: Array<{ version: number }> = []
  for (let page: string | undefined = `${targets[0].path}/revisions?limit=50`; page !== undefined;) {
    const revisions = await call(after, page)
    if (revisions.status !== 200) fail(`after: ${page} answered ${revisions.status}: ${revisions.body}`)
    items.push(...JSON.parse(revisions.body))
    page = /^<([^>]+)>; rel="next"$/.exec(revisions.headers.get("link") ?? "")?.[1]
  }
  if (items.length !== keep || items[0]?.version !== targets[0].version) {
    fail(`after: ${items.length} revisions, the newest at version ${items[0]?.version}; expected ${keep}, the newest at ${targets[0].version}`)
  }
  if ((await call(before, `${targets[1].path}/revisions`)).status !== 404) fail("before: a revision list answered")

  // What one PATCH runs on each, through the statement log (a server of each on the same database, not the measured ones).
  for (const [index, spec] of specs.entries()) {
    const log = await statementLog(withDatabase(serverUrl, spec.database))
    const logged = await startServer(`${spec.name} (logged)`, spec.script, envOf(log.url), 4242 + index)
    const target = targets[index]!
    try {
      await printStatementsOf(log, `${spec.name}, one PATCH`, async () => {
        const body = JSON.stringify({ content_html: edit() })
        await fetch(logged.url + target.path, { method: "PATCH", headers: { ...auth, "content-type": "application/json" }, body }).then((r) => r.text())
      })
    } finally {
      await stopServer(logged)
      await log.close()
    }
  }

  const [withRevisions, old] = targets.map((target) => [...target.times].sort((a, b) => a - b)) as [Array<number>, Array<number>]
  const row = (name: string, times: ReadonlyArray<number>, cpu: { server: number; postgres: number }) =>
    `${name.padEnd(34)}${percentile(times, 0.5).toFixed(2).padStart(8)}${percentile(times, 0.99).toFixed(2).padStart(8)}` +
    `${cpu.server.toFixed(0).padStart(21)}${cpu.postgres.toFixed(0).padStart(6)}`
  const ratio = percentile(withRevisions, 0.99) / percentile(old, 0.99)
  console.log(
    `\nLesson PATCH on PostgreSQL: ${samples} samples each after ${warmup} warm-up pairs, a ${
      (bytes / (warmup + samples) / 1000).toFixed(1)
    } KB body changed every time, one request at a time`
  )
  console.log(`checked: every PATCH 200 and one version up on both; the new server keeps ${keep} revisions, the newest at version ${targets[0].version}; the old one has no revision routes\n`)
  console.log(`${"".padEnd(34)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}${"cpu µs/patch server".padStart(21)}${"pg".padStart(6)}`)
  console.log(row(`before issue #32 (${beforeCommit})`, old, cpuPerPatch[1]!))
  console.log(row("with revisions (this checkout)", withRevisions, cpuPerPatch[0]!))
  console.log(`\np99 ratio with revisions ÷ before: ${ratio.toFixed(2)}× (p50 ${(percentile(withRevisions, 0.5) / percentile(old, 0.5)).toFixed(2)}×)`)
  // Sample i of both carried the same body at the same moment: their difference is the change's cost, less the machine's noise.
  const added = targets[0].times.map((time, i) => time - targets[1].times[i]!).sort((a, b) => a - b)
  console.log(`added per PATCH, median of the pairs: ${percentile(added, 0.5).toFixed(2)} ms`)
  console.log(`target: p99 ≤ 1.3× before: ${ratio <= 1.3 ? "met" : "missed"}`)
} finally {
  for (const server of running) await stopServer(server)
  for (const drop of drops) await drop()
  await activity.end()
  rmSync(beforeDirectory, { recursive: true, force: true })
}
