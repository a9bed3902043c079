/**
 * GET /courses/search over 10,000 courses on PostgreSQL, next to the course list in the
 * same run, 50 connections, Coursekit's standalone server as shipped (its build):
 *   list         GET /courses?cursor=…&limit=10, list cache on (as shipped),
 *   list-nocache the same with LIST_CACHE_ENTRIES=0,
 *   search       GET /courses/search?q=…: a mix of what students type (a topic word, an
 *                accented or capitalised phrase, two words, a prefix being typed, a
 *                word every other course has),
 *   search-broad only words that most courses hold (the worst case: every match is
 *                scored and sorted),
 *   search-1c, broad-1c  the same with one connection: latency without queueing.
 * The courses are written by plain SQL with varied words (titles of topic words, 5 KB
 * bodies drawn from a skewed vocabulary of 3,000 words), so the server's start after the
 * seeding indexes them (PgCourseSearch.indexMissing): its duration is printed too.
 * Prints req/s, p50, p99 and the ratios of each run to the lists (50 connections unless
 * named `-1c`).
 */
import pg from "pg"
import { coursekitOn, freshDatabase, load, type LoadResult, memoryOf, seededRandom, startServer, stopServer, withDatabase } from "./measure.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const connections = 50
const courses = 10_000

const database = `coursekit_bench_search_${process.pid}`
const databaseUrl = withDatabase(serverUrl, database)

// The same pseudo-random data and requests on every run.
const random = seededRandom(42)
const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!

const topics = [
  "rust", "python", "typescript", "haskell", "sql", "postgres", "kubernetes", "docker", "linux", "networking",
  "security", "cryptography", "statistics", "algebra", "calculus", "geometry", "physics", "chemistry", "biology",
  "genetics", "astronomy", "economics", "accounting", "marketing", "design", "typography", "photography", "drawing",
  "painting", "sculpture", "piano", "guitar", "singing", "composition", "harmony", "french", "german", "spanish",
  "japanese", "mandarin", "writing", "poetry", "history", "philosophy", "ethics", "psychology", "nutrition",
  "baking", "pastry", "bread", "cooking", "gardening", "woodworking", "knitting", "yoga", "running", "swimming",
  "chess", "negotiation", "leadership"
]
const phrases = ["Crème brûlée", "Pâtisserie française", "Smørrebrød", "Straße und Verkehr", "Café au lait", "Łódź walking tour"]
const levels = ["Introduction to", "Advanced", "Practical", "Hands-on", "A first course in", "Mastering"]
const syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dur", "ik", "pa", "no", "ther", "ga", "bri", "os", "lem", "un", "cor"]
const vocabulary = Array.from({ length: 3000 }, (_, i) => {
  let word = ""
  for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length]
  return word
})
/** A vocabulary word, skewed: the first words appear in nearly every body. */
const bodyWord = () => vocabulary[Math.floor(random() ** 3 * vocabulary.length)]!

const courseRow = (i: number) => {
  const topic = pick(topics)
  const second = pick(topics)
  const title = i % 50 === 0 ? `${pick(phrases)} ${i}` : `${pick(levels)} ${topic} and ${second} ${i}`
  const paragraphs: Array<string> = []
  for (let p = 0; p < 8; p++) {
    const words = Array.from({ length: 90 }, () => random() < 0.02 ? pick(topics) : bodyWord())
    paragraphs.push(`<p>${words.join(" ")}.</p>`)
  }
  return {
    title,
    slug: `course-${i}`,
    description: `Learn ${topic} with exercises on ${second}.`,
    content_html: `<h2>${topic}</h2>${paragraphs.join("")}`,
    thumbnail_key: i % 2 === 0 ? `courses/${i}/thumb.jpg` : null
  }
}

const q = (text: string) => `/courses/search?q=${encodeURIComponent(text)}`
const broadWords = vocabulary.slice(0, 12)
const searchPaths = Array.from({ length: 5000 }, () => {
  const kind = random()
  if (kind < 0.35) return q(pick(topics))
  if (kind < 0.45) return q(pick(phrases).toUpperCase())
  if (kind < 0.65) return q(`${pick(topics)} ${pick(broadWords)}`)
  if (kind < 0.85) {
    const topic = pick(topics)
    return q(`${pick(levels).split(" ")[0]} ${topic.slice(0, 3 + Math.floor(random() * 3))}`)
  }
  return q(pick(broadWords))
})
const broadPaths = Array.from({ length: 1000 }, () => q(pick(broadWords)))
const listPaths = Array.from({ length: 5000 }, () => `/courses?cursor=${1 + Math.floor(random() * courses)}&limit=10`)

const coursekitEnv = coursekitOn(databaseUrl)
const script = "packages/server/dist/main.js"

const runs = [
  { name: "list", env: coursekitEnv, paths: listPaths, connections },
  { name: "list-nocache", env: { ...coursekitEnv, LIST_CACHE_ENTRIES: "0" }, paths: listPaths, connections },
  { name: "search", env: coursekitEnv, paths: searchPaths, connections },
  { name: "search-broad", env: coursekitEnv, paths: broadPaths, connections },
  // One client at a time: the latency of a search on its own, without queueing.
  { name: "search-1c", env: coursekitEnv, paths: searchPaths, connections: 1 },
  { name: "broad-1c", env: coursekitEnv, paths: broadPaths, connections: 1 }
] as const

interface Sample extends LoadResult {
  readonly rssMiB: number
}

const dropDatabase = await freshDatabase(serverUrl, database)
try {
  // The first start migrates the database; the courses are then written by plain SQL.
  await stopServer(await startServer("coursekit", script, coursekitEnv, 4600))
  const seeder = new pg.Client({ connectionString: databaseUrl })
  await seeder.connect()
  for (let from = 1; from <= courses; from += 500) {
    const rows = Array.from({ length: Math.min(500, courses - from + 1) }, (_, k) => courseRow(from + k))
    const values = rows.map((_, k) => `($${k * 5 + 1}, $${k * 5 + 2}, $${k * 5 + 3}, $${k * 5 + 4}, $${k * 5 + 5})`)
    await seeder.query(
      `INSERT INTO coursekit.courses (title, slug, description, content_html, thumbnail_key) VALUES ${values.join(", ")}`,
      rows.flatMap((row) => [row.title, row.slug, row.description, row.content_html, row.thumbnail_key])
    )
  }
  // The start after the seeding writes every search document.
  const indexing = performance.now()
  await stopServer(await startServer("coursekit", script, coursekitEnv, 4601))
  const indexSeconds = (performance.now() - indexing) / 1000
  await seeder.query("VACUUM ANALYZE")
  const { rows: [stats] } = await seeder.query(`
    SELECT (SELECT count(*)::int FROM coursekit.course_search_documents) AS documents,
           (SELECT avg(length(content_html))::int FROM coursekit.courses) AS body,
           (SELECT avg(pg_column_size(document))::int FROM coursekit.course_search_documents) AS document_bytes`)
  const counts: Array<string> = []
  for (const word of [...broadWords.slice(0, 3), "rust", "pyt"]) {
    const { rows } = await seeder.query(
      `SELECT count(*)::int AS n FROM coursekit.course_search_documents WHERE document @@ $1::tsquery`,
      [`'${word}':*`]
    )
    counts.push(`${word}: ${rows[0].n}`)
  }
  await seeder.end()
  console.log(
    `seeded ${courses} courses (${stats.body} byte bodies, ${stats.document_bytes} byte documents); start with indexing ` +
      `${indexSeconds.toFixed(1)} s for ${stats.documents} documents; courses matching ${counts.join(", ")}; ` +
      `${seconds}s per run`
  )

  const samples = new Map<string, Array<Sample>>(runs.map((run) => [run.name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? runs : [...runs].reverse()
    for (const run of order) {
      const server = await startServer(run.name, script, run.env, 4610 + round * 10 + runs.indexOf(run))
      await load(server.url, run.paths, run.connections, 3) // warm-up: JIT, pools, caches
      const result = await load(server.url, run.paths, run.connections, seconds)
      const memory = memoryOf(server.child.pid!)
      await stopServer(server)
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${run.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
      }
      samples.get(run.name)!.push({ ...result, rssMiB: memory.rssMiB })
      console.log(
        `round ${round + 1} ${run.name.padEnd(12)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${result.p50} ms  p99 ${result.p99} ms  rss ${memory.rssMiB.toFixed(0)} MiB`
      )
    }
  }

  const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length
  const summary = new Map([...samples].map(([name, list]) => [name, {
    rps: mean(list.map((sample) => sample.requestsPerSecond)),
    p50: mean(list.map((sample) => sample.p50)),
    p99: mean(list.map((sample) => sample.p99)),
    rss: mean(list.map((sample) => sample.rssMiB))
  }]))
  const list = summary.get("list")!
  const uncached = summary.get("list-nocache")!
  console.log("\nrun            req/s   p50 ms  p99 ms  rss MiB  req/s ÷ list  req/s ÷ list-nocache  p99 ÷ list-nocache")
  for (const [name, row] of summary) {
    console.log(
      `${name.padEnd(12)} ${row.rps.toFixed(0).padStart(7)} ${row.p50.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(7)} ` +
        `${row.rss.toFixed(0).padStart(8)} ${(row.rps / list.rps).toFixed(3).padStart(13)} ` +
        `${(row.rps / uncached.rps).toFixed(3).padStart(21)} ${(row.p99 / uncached.p99).toFixed(2).padStart(19)}`
    )
  }
} finally {
  await dropDatabase()
}
