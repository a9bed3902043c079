import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CourseRepo, publishedNow } from "../../src/index.ts"
import { courseRepoSuite } from "../../src/testing/index.ts"

courseRepoSuite("in-memory", CourseRepo.layerMemory)

describe("CourseRepo.layerMemory's version", () => {
  it.effect("is opaque: the counter under the layer's own secret salt, so two stores after the same writes answer different versions", () =>
    Effect.gen(function*() {
      // The same writes in two fresh stores: the same counter in each.
      const versionsAfterWrites = Effect.gen(function*() {
        const repo = yield* CourseRepo
        const versions = [yield* repo.version]
        const draft = yield* repo.insert({ ...publishedNow, status: "draft", title: "Unannounced", slugBase: "unannounced", content_html: "" })
        versions.push(yield* repo.version)
        yield* repo.update(draft.id, { title: "Still unannounced" })
        versions.push(yield* repo.version)
        yield* repo.delete(draft.id)
        versions.push(yield* repo.version)
        return versions
      }).pipe(Effect.provide(Layer.fresh(CourseRepo.layerMemory)))
      const first = yield* versionsAfterWrites
      const second = yield* versionsAfterWrites
      for (const version of [...first, ...second]) assert.match(version, /^[0-9a-f]{32}$/)
      assert.strictEqual(new Set(first).size, 4, "every write is a new version")
      for (const [index, version] of first.entries()) assert.notStrictEqual(version, second[index], `after ${index} writes`)
    }))
})
