import { describe, expect, it } from "@effect/vitest"
import { acceptsEventStream } from "../src/handlers/GenerationEventStream.ts"

describe("acceptsEventStream", () => {
  it.each<[string | undefined, boolean]>([
    ["text/event-stream", true],
    ["TEXT/Event-Stream", true],
    ["text/event-stream; charset=utf-8", true],
    ["application/json, text/event-stream", true],
    ["text/event-stream;q=0.5, application/json;q=0.5", true],
    [undefined, false],
    ["", false],
    ["*/*", false],
    ["text/*", false],
    ["application/json", false],
    ["text/event-stream;q=0", false],
    ["text/event-stream;q=0.0, application/json", false],
    ["text/event-stream;q=abc", false],
    ["text/event-stream;q=0.1, application/json", false],
    ["text/event-stream;q=0.1, */*;q=0.5", false],
    ["text/event-stream, */*;q=0.5", true]
  ])("%j → %s", (accept, streams) => {
    expect(acceptsEventStream(accept)).toBe(streams)
  })
})
