/**
 * Sanitizer throughput: Coursekit's three-stage pipeline (model output: strip,
 * normalize, allow-list) against sanitize-html and DOMPurify + jsdom configured with the
 * same allow-list (tags, attributes, classes, URL schemes, video embeds), side by side in
 * one run, on 240 generated lesson documents of 3–30 KB with fences, lead-ins, empty
 * paragraphs, style/id/onclick, utility classes and iframes (YouTube and Vimeo players
 * with extra attributes and fallback text, and look-alike hosts). Prints docs/s and the
 * ratios to sanitize-html. Target (issues #3, #13): Coursekit ≥ 1.0× sanitize-html.
 *
 * Coursekit is measured twice (issue #30): in process (`HtmlSanitizer.layer`, on the
 * thread the others run on) and on the server's pool of worker processes
 * (`WorkerHtmlSanitizer`, SANITIZER_WORKERS of them, documents kept in flight), which is
 * what `npm start` runs. Then the pathological shapes of the outside probe, one row each:
 * how long each contender takes per document, what Coursekit answers, and the longest
 * the main thread's event loop waited while the pool worked.
 */
import { defaultAllowList, HtmlSanitizer } from "@coursekit/core"
import { WorkerHtmlSanitizer } from "@coursekit/server"
import DOMPurify from "dompurify"
import { Effect } from "effect"
import { JSDOM } from "jsdom"
import { monitorEventLoopDelay } from "node:perf_hooks"
import sanitizeHtml from "sanitize-html"
import { seededRandom } from "./measure.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)

// --- corpus -------------------------------------------------------------------------
const random = seededRandom(7)
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
const words = "loop variable function array index value compile memory thread module type error test".split(" ")
const videoId = () => Array.from({ length: 11 }, () => pick([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"])).join("")
const sentence = () => Array.from({ length: 8 + Math.floor(random() * 12) }, () => pick(words)).join(" ")
const classes = ["text-center", "font-bold", "mt-4", "evil-class", "p-4 bg-gray-100", "list-disc ml-6"]
const block = (): string =>
  pick([
    () => `<p class="${pick(classes)}" style="color:red" id="p${Math.floor(random() * 1e6)}">${sentence()} <b>${pick(words)}</b> <a href="https://example.com/${pick(words)}" onclick="track()">${pick(words)}</a>.</p>`,
    () => `<p></p><p> </p><h2 id="h">${sentence()}</h2>`,
    () => `<ul class="list-disc ml-6">${Array.from({ length: 4 }, () => `<li><span>${sentence()}</span></li>`).join("")}</ul>`,
    () => `<table class="table-auto"><tr><th>${pick(words)}</th><th>${pick(words)}</th></tr><tr><td>${sentence()}</td><td style="x">${sentence()}</td></tr></table>`,
    () => `<details><summary>${pick(words)}</summary><pre><code>for (let i = 0; i &lt; 10; i++) {\n  ${pick(words)}(i)\n}</code></pre></details>`,
    () => `<div class="p-4 bg-gray-100" onmouseover="x()"><p>${sentence()}</p><img src="/img/${pick(words)}.png" alt="${pick(words)}" onerror="x()"></div>`,
    () => `<p>${sentence()}<script>track()</script> <em><em>${pick(words)}</em></em></p>`,
    () =>
      pick([
        () => `<p>${sentence()}</p><iframe src="https://www.youtube.com/embed/${videoId()}?start=${Math.floor(random() * 600)}&si=${videoId()}" width="560" height="315" title="${pick(words)}" allowfullscreen>Your browser cannot show videos.</iframe>`,
        () => `<figure><iframe src="https://player.vimeo.com/video/${Math.floor(random() * 1e9)}?h=${videoId().toLowerCase()}&autoplay=1" style="border:0"></iframe><figcaption>${sentence()}</figcaption></figure>`,
        () => `<iframe src="https://www.youtube.com.${pick(words)}.example/embed/${videoId()}" onload="x()">${sentence()}</iframe><p>${sentence()}</p>`
      ])()
  ])()
const lesson = () => {
  const target = 3_000 + Math.floor(random() * 27_000)
  let body = ""
  while (body.length < target) body += block() + "\n"
  return `${pick(["Sure! Here is the lesson:", "Certainly.", ""])}\n\`\`\`html\n${body}\`\`\`\n${pick(["Let me know if you need more!", ""])}`
}
const corpus = Array.from({ length: 240 }, lesson)
const corpusBytes = corpus.reduce((sum, doc) => sum + doc.length, 0)

// --- the same allow-list for everyone ----------------------------------------------------
const tags = Object.keys(defaultAllowList.tags)
const attributeName = (name: string) => (name === "className" ? "class" : name.toLowerCase())
const attributesByTag: Record<string, Array<string>> = {}
for (const [tag, names] of Object.entries(defaultAllowList.attributes)) {
  attributesByTag[tag] = Object.keys(names).map(attributeName)
}
const allowedClasses = Object.keys(defaultAllowList.classes)

// Embeds, as close to Coursekit's rules as each library allows: https only, the provider
// hosts, no relative URLs, the forced attributes written, YouTube moved to its no-cookie
// host, refused iframes removed. (Neither checks the path or the query.)
const embedHosts = [...new Set(Object.values(defaultAllowList.embeds).flatMap((p) => [...p.hosts, ...(p.rewriteHost ? [p.rewriteHost] : [])]))]
const embedHostSet = new Set(embedHosts)
const forcedEmbedAttributes = {
  sandbox: "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox",
  allow: "encrypted-media; fullscreen; picture-in-picture",
  allowfullscreen: "",
  referrerpolicy: "strict-origin-when-cross-origin",
  loading: "lazy"
}
const noCookie = (src: string) => src.replace(/^https:\/\/(www\.)?youtube\.com\//i, "https://www.youtube-nocookie.com/")

const sanitizeHtmlOptions: sanitizeHtml.IOptions = {
  allowedTags: [...tags, "iframe"],
  allowedAttributes: { ...attributesByTag, iframe: ["src", ...Object.keys(forcedEmbedAttributes)] },
  allowedClasses: { "*": allowedClasses },
  allowedSchemes: [...defaultAllowList.protocols.href!],
  allowedSchemesByTag: { img: [...defaultAllowList.protocols.src!], iframe: ["https"] },
  allowedIframeHostnames: embedHosts,
  allowIframeRelativeUrls: false,
  transformTags: {
    iframe: (tagName, attribs) => ({ tagName, attribs: { src: noCookie(attribs.src ?? ""), ...forcedEmbedAttributes } })
  },
  exclusiveFilter: (frame) => frame.tag === "iframe" && !frame.attribs.src,
  textFilter: (text, tagName) => (tagName === "iframe" ? "" : text),
  nonTextTags: defaultAllowList.dropWithContent.filter((tag) => tag !== "iframe")
}

const window = new JSDOM("").window
const purify = DOMPurify(window as unknown as Parameters<typeof DOMPurify>[0])
const allClassSet = new Set(allowedClasses)
purify.addHook("uponSanitizeAttribute", (_node, data) => {
  if (data.attrName === "class") data.attrValue = data.attrValue.split(/\s+/).filter((c) => allClassSet.has(c)).join(" ")
})
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName !== "IFRAME") return
  const url = URL.parse(node.getAttribute("src") ?? "")
  if (url === null || url.protocol !== "https:" || !embedHostSet.has(url.hostname)) {
    node.remove()
    return
  }
  for (const name of node.getAttributeNames()) if (name !== "src") node.removeAttribute(name)
  node.setAttribute("src", noCookie(url.href))
  for (const [name, value] of Object.entries(forcedEmbedAttributes)) node.setAttribute(name, value)
  node.textContent = ""
})
const purifyOptions = {
  ALLOWED_TAGS: [...tags, "iframe"],
  ALLOWED_ATTR: [...new Set(Object.values(attributesByTag).flat()), "src"],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  FORBID_CONTENTS: defaultAllowList.dropWithContent.filter((tag) => tag !== "iframe")
}

const coursekit = Effect.runSync(Effect.provide(
  Effect.gen(function*() {
    return yield* HtmlSanitizer
  }),
  HtmlSanitizer.layer
))

const contenders: ReadonlyArray<readonly [string, (html: string) => string]> = [
  ["coursekit (3 stages)", (html) => Effect.runSync(coursekit.sanitizeModelOutput(html))],
  ["sanitize-html", (html) => sanitizeHtml(html, sanitizeHtmlOptions)],
  ["dompurify+jsdom", (html) => purify.sanitize(html, purifyOptions) as unknown as string]
]

// --- measure -------------------------------------------------------------------------
// Rounds interleave the contenders, so a machine that speeds up or slows down during the
// run affects each of them alike; the ratio reported is the median of the rounds' ratios.
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const measure = (run: (html: string) => string, milliseconds: number) => {
  let docs = 0
  const start = performance.now()
  while (performance.now() - start < milliseconds) {
    run(corpus[docs % corpus.length]!)
    docs++
  }
  return docs / ((performance.now() - start) / 1000)
}
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

console.log(`${corpus.length} lesson documents, ${(corpusBytes / corpus.length / 1024).toFixed(1)} KB on average; ${rounds} rounds of ${seconds}s per sanitizer`)
for (const [, run] of contenders) for (const doc of corpus.slice(0, 40)) run(doc) // warm-up
const rates = new Map<string, Array<number>>(contenders.map(([name]) => [name, []]))
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of contenders) rates.get(name)!.push(measure(run, (seconds * 1000) / rounds))
}
const reference = rates.get("sanitize-html")!
console.log("\nsanitizer               docs/s   ÷ sanitize-html (median of rounds)")
for (const [name, list] of rates) {
  const ratio = median(list.map((rate, round) => rate / reference[round]!))
  console.log(`${name.padEnd(22)} ${median(list).toFixed(0).padStart(7)} ${ratio.toFixed(2).padStart(16)}`)
}
const ratio = median(rates.get("coursekit (3 stages)")!.map((rate, round) => rate / reference[round]!))

// --- the worker pool ------------------------------------------------------------------
// As many as `npm start` runs on this machine unless SANITIZER_WORKERS says.
const workers = Number(process.env.SANITIZER_WORKERS ?? WorkerHtmlSanitizer.defaultWorkers())
const onPool = <A>(use: (sanitizer: HtmlSanitizer["Service"]) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    return yield* use(yield* HtmlSanitizer)
  }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({
    workers,
    limits: { maxElements: 100_000, maxLength: 10_000_000 },
    timeBudget: "60 seconds"
  })))))

/** Docs/s through the pool in `milliseconds`, `workers * 2` documents in flight. */
const measurePool = (sanitizer: HtmlSanitizer["Service"], milliseconds: number) =>
  Effect.promise(async () => {
    let docs = 0
    let next = 0
    const start = performance.now()
    const lane = async () => {
      while (performance.now() - start < milliseconds) {
        await Effect.runPromise(sanitizer.sanitizeModelOutput(corpus[next++ % corpus.length]!))
        docs++
      }
    }
    await Promise.all(Array.from({ length: workers * 2 }, lane))
    return docs / ((performance.now() - start) / 1000)
  })

const poolRates: Array<number> = []
const poolReference: Array<number> = []
await onPool((sanitizer) =>
  Effect.gen(function*() {
    yield* measurePool(sanitizer, 3_000) // warm-up: the workers load and compile
    for (let round = 0; round < rounds; round++) {
      poolRates.push(yield* measurePool(sanitizer, (seconds * 1000) / rounds))
      poolReference.push(measure(contenders[1]![1], (seconds * 1000) / rounds))
    }
  })
)
const poolRatio = median(poolRates.map((rate, round) => rate / poolReference[round]!))
console.log(`${`coursekit, ${workers} workers`.padEnd(22)} ${median(poolRates).toFixed(0).padStart(7)} ${poolRatio.toFixed(2).padStart(16)}`)
console.log(`\ntarget: coursekit ≥ 1.0× sanitize-html — in process ${ratio.toFixed(2)}×: ${ratio >= 1 ? "met" : "MISSED"}; ` +
  `on the worker pool ${poolRatio.toFixed(2)}×: ${poolRatio >= 1 ? "met" : "MISSED"}`)

// --- pathological shapes -----------------------------------------------------------------
const shapes: ReadonlyArray<readonly [string, string]> = [
  ["misnested <b><p>x, 1 MB", "<b><p>x".repeat(142_857)],
  ["misnested inline, 0.9 MB", "<a><b><i><u><s>x</a>".repeat(47_000)],
  ["deep tables, 1 MB", "<table><tr><td>".repeat(66_000)],
  ["90,000 attributes", `<p ${Array.from({ length: 90_000 }, (_, i) => `a${i}=x`).join(" ")}>x</p>`],
  ["14,000 embeds", "<iframe src=\"https://www.youtube.com/embed/dQw4w9WgXcQ\"></iframe>".repeat(14_000)]
]
const timed = <A>(run: () => A): [number, A] => {
  const start = performance.now()
  const value = run()
  return [performance.now() - start, value]
}
const outcome = (exit: { readonly _tag: string; readonly value?: unknown; readonly cause?: unknown }) =>
  exit._tag === "Success" ? `${String(exit.value).length} chars` : String((exit.cause as { reasons?: Array<{ error?: { _tag?: string } }> }).reasons?.[0]?.error?._tag ?? "failed")
console.log("\npathological shape          sanitize-html ms  in process ms  pool ms  pool answer            loop's longest wait ms")
await onPool((sanitizer) =>
  Effect.gen(function*() {
    yield* sanitizer.sanitizeAuthored("<p>warm</p>")
    for (const [name, html] of shapes) {
      // The pool first: the garbage of the in-process runs would be collected during it.
      const delay = monitorEventLoopDelay({ resolution: 1 })
      delay.enable()
      const start = performance.now()
      const exit = yield* Effect.exit(sanitizer.sanitizeAuthored(html))
      const poolMs = performance.now() - start
      delay.disable()
      const longest = delay.max / 1e6
      const [referenceMs] = timed(() => sanitizeHtml(html, sanitizeHtmlOptions))
      const [localMs] = timed(() => Effect.runSyncExit(coursekit.sanitizeAuthored(html)))
      console.log(`${name.padEnd(28)} ${referenceMs.toFixed(0).padStart(13)} ${localMs.toFixed(0).padStart(14)} ${poolMs.toFixed(0).padStart(8)}  ${outcome(exit as never).padEnd(22)} ${longest.toFixed(1).padStart(10)}`)
    }
  })
)
