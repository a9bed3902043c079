import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { FileUrl } from "../../src/index.ts"

const publicUrlOf = (base: string) => Effect.runSync(Effect.provide(Effect.service(FileUrl), FileUrl.layer(base))).publicUrl

describe("FileUrl.publicUrl", () => {
  const publicUrl = publicUrlOf("https://cdn.test/files")

  it("escapes each segment of a key and keeps the slashes between them", () => {
    assert.strictEqual(publicUrl("courses/12/thumb.jpg"), "https://cdn.test/files/courses/12/thumb.jpg")
    assert.strictEqual(publicUrl("courses/12/a b#?.jpg"), "https://cdn.test/files/courses/12/a%20b%23%3F.jpg")
    assert.strictEqual(publicUrl("courses/12/caf\u00e9 100%.jpg"), "https://cdn.test/files/courses/12/caf%C3%A9%20100%25.jpg")
    assert.strictEqual(publicUrl("a//b/(x)!~*'.png"), "https://cdn.test/files/a//b/(x)!~*'.png")
  })

  it("answers for every key what escaping each segment with encodeURIComponent answers", () => {
    const character = fc.constantFrom(..."aZ09-_.!~*'()/ %#?&=+:;@\u00e9\u4e2d\\\"<>")
    fc.assert(
      fc.property(fc.array(character, { maxLength: 24 }).map((chars) => chars.join("")), (key) => {
        assert.strictEqual(publicUrl(key), "https://cdn.test/files/" + key.split("/").map(encodeURIComponent).join("/"))
      }),
      { numRuns: 2_000 }
    )
  })
})
