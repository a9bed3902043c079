/**
 * The catalogue use cases with no database: the core's in-memory layers.
 * Run: sh scripts/node24.sh node --conditions=@coursekit/source --import tsx examples/01-catalogue-in-memory.ts
 */
import { Courses, publicAudience } from "@coursekit/core"
import { Effect } from "effect"

const program = Effect.gen(function*() {
  const catalogue = yield* Courses
  const first = yield* catalogue.create({ title: "Crème brûlée for beginners", content_html: "<p>Eggs.</p>" })
  const second = yield* catalogue.create({ title: "Crème brûlée for beginners", content_html: "<p>Again.</p>" })
  console.log(first.slug, second.slug)
  const page = yield* catalogue.list({ cursor: undefined, limit: 1, audience: publicAudience })
  console.log(`first page: ${page.items.map((item) => item.title).join(", ")}; next cursor: ${page.next}`)
})

Effect.runPromise(program.pipe(Effect.provide(Courses.layerMemory("https://cdn.example.com"))))
