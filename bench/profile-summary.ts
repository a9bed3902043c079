/**
 * Where a server's CPU time goes, from `.cpuprofile` files (`node --cpu-prof`, e.g.
 * `BENCH_PROFILE_DIR` of `public-course.ts`): self time per function (the top 25) and
 * per package — effect, @effect/sql-pg, pg, jose, each Coursekit package, other
 * dependencies, node internals, and V8's own (GC, compiled code outside any function).
 * Idle time is left out of the shares.
 *
 *   sh scripts/node24.sh node --import tsx bench/profile-summary.ts /tmp/prof-public/*.cpuprofile
 *
 * `--requests=<n>` (the requests the profiles cover, e.g. as `learner-progress.ts` prints
 * them) adds each line's µs per request; `--focus=<regexp>` narrows the inclusive times.
 */
import { readFileSync } from "node:fs"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const packageOf = ({ functionName, url }: CallFrame) => {
  if (url === "") return functionName === "(garbage collector)" ? "v8: garbage collector" : `v8: ${functionName || "(anonymous)"}`
  if (url.startsWith("node:")) return "node internals"
  const coursekit = /\/packages\/([^/]+)\/dist\//.exec(url)
  if (coursekit !== null) return `@coursekit/${coursekit[1]}`
  const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (dependency !== null) return dependency[1]!
  return url
}

const keyOf = (frame: CallFrame) => {
  const path = frame.url.replace(/^.*\/node_modules\//, "").replace(/^.*\/packages\//, "packages/")
  return `${frame.functionName || "(anonymous)"}  ${path}${frame.url === "" ? "" : `:${frame.lineNumber + 1}`}`
}

// `--focus=<regexp>`: only the inclusive times of functions whose name or file matches.
const focusArgument = process.argv.find((argument) => argument.startsWith("--focus="))
const focus = focusArgument === undefined ? undefined : new RegExp(focusArgument.slice("--focus=".length))
// `--requests=<n>`: the requests the profiles cover; each line then also says its µs per request.
const requestsArgument = process.argv.find((argument) => argument.startsWith("--requests="))
const requests = requestsArgument === undefined ? undefined : Number(requestsArgument.slice("--requests=".length))
const files = process.argv.slice(2).filter((argument) => !argument.startsWith("--"))
if (files.length === 0) {
  console.error("usage: profile-summary.ts <file.cpuprofile>…")
  process.exit(1)
}
const byFunction = new Map<string, { micros: number; pkg: string }>()
const byPackage = new Map<string, number>()
// Time with the function anywhere on the stack (counted once per sample).
const inclusive = new Map<string, number>()
let total = 0
let idle = 0
for (const file of files) {
  const profile: Profile = JSON.parse(readFileSync(file, "utf8"))
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parents = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0
    const frame = nodes.get(id)!.callFrame
    if (frame.functionName === "(idle)") {
      idle += micros
      return
    }
    total += micros
    const pkg = packageOf(frame)
    const onStack = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) onStack.add(keyOf(nodes.get(at)!.callFrame))
    for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + micros)
    const key = keyOf(frame)
    const entry = byFunction.get(key) ?? { micros: 0, pkg }
    entry.micros += micros
    byFunction.set(key, entry)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros)
  })
}
const share = (micros: number) =>
  `${(100 * micros / total).toFixed(1).padStart(5)} %${requests === undefined ? "" : ` ${(micros / requests).toFixed(1).padStart(7)} µs/request`}`
console.log(
  `${files.length} profile(s): ${(total / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle` +
    `${requests === undefined ? "" : `; ${requests} requests, ${(total / requests).toFixed(0)} µs busy per request`}\n`
)
console.log("self time by package")
for (const [pkg, micros] of [...byPackage].sort((a, b) => b[1] - a[1])) {
  if (micros / total >= 0.001) console.log(`${share(micros)}  ${pkg}`)
}
console.log("\ntop 25 functions by self time")
for (const [key, { micros }] of [...byFunction].sort((a, b) => b[1].micros - a[1].micros).slice(0, 25)) {
  console.log(`${share(micros)}  ${key}`)
}
// Coursekit's and its dependencies' named functions (the runtime's own loop left out: it is on every stack).
const runtime = /^(runLoop|evaluate|\(anonymous\)|\(root\)|processTicksAndRejections|runMicrotasks|listOnTimeout|processTimers) /
console.log("\ntop 25 named functions by inclusive time (with their callees)")
for (const [key, micros] of [...inclusive].filter(([key]) => !runtime.test(key) && (focus === undefined || focus.test(key))).sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${share(micros)}  ${key}`)
}
