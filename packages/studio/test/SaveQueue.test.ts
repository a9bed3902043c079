import { describe, expect, it } from "vitest"
import { makeSaveQueue, type SaveOutcome, type SaveStatus, type Timers } from "../src/features/editor/SaveQueue.ts"

/** Timers that run only when the test advances them. */
const manualTimers = () => {
  let now = 0
  const due = new Map<number, { at: number; run: () => void }>()
  let next = 0
  const timers: Timers = {
    setTimeout: (run, ms) => (due.set(++next, { at: now + ms, run }), next),
    clearTimeout: (handle) => void due.delete(handle as number)
  }
  const advance = (ms: number) => {
    now += ms
    for (const [handle, { at, run }] of [...due].sort((a, b) => a[1].at - b[1].at)) {
      if (at > now) continue
      due.delete(handle)
      run()
    }
  }
  return { timers, advance }
}

/** A save the test answers by hand. */
const manualSaves = <D>() => {
  const calls: Array<{ draft: D; version: number; answer: (outcome: SaveOutcome) => Promise<void> }> = []
  const save = (draft: D, version: number) =>
    new Promise<SaveOutcome>((resolve) => {
      calls.push({ draft, version, answer: (outcome) => (resolve(outcome), Promise.resolve().then(() => {})) })
    })
  return { calls, save }
}

const setUp = (version = 1) => {
  const { timers, advance } = manualTimers()
  const { calls, save } = manualSaves<string>()
  const statuses: Array<SaveStatus["_tag"]> = []
  const queue = makeSaveQueue({ version, save, timers, quietMs: 1000, retryMs: 5000, onStatus: (status) => statuses.push(status._tag) })
  return { queue, calls, statuses, advance }
}

// The promise's continuation runs after the test's microtasks.
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe("the autosave queue", () => {
  it("saves 1 s after the last edit, with the newest content and the version it was made from", async () => {
    const { queue, calls, statuses, advance } = setUp(3)
    queue.edit(() => "a")
    advance(600)
    queue.edit(() => "ab")
    advance(999)
    expect(calls).toHaveLength(0)
    advance(1)
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["ab", 3]])
    await calls[0]!.answer({ _tag: "saved", version: 4 })
    await settle()
    expect(queue.version).toBe(4)
    expect(queue.dirty).toBe(false)
    expect(statuses).toEqual(["unsaved", "unsaved", "saving", "saved"])
  })

  it("keeps one save in flight: an edit made meanwhile waits, then goes with the newest content and the new version", async () => {
    const { queue, calls, statuses, advance } = setUp(1)
    queue.edit(() => "one")
    advance(1000)
    queue.edit(() => "one two")
    advance(1000)
    queue.edit(() => "one two three")
    advance(1000)
    // Still the first save only.
    expect(calls).toHaveLength(1)
    await calls[0]!.answer({ _tag: "saved", version: 2 })
    await settle()
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["one", 1], ["one two three", 2]])
    expect(queue.dirty).toBe(true)
    await calls[1]!.answer({ _tag: "saved", version: 3 })
    await settle()
    expect(queue.dirty).toBe(false)
    expect(statuses.at(-1)).toBe("saved")
  })

  it("reads the content once, when its save starts, however many edits came before", async () => {
    const { queue, calls, advance } = setUp(1)
    let content = ""
    let reads = 0
    const read = () => (reads++, content)
    for (const key of "hello") {
      content += key
      queue.edit(read)
      advance(100)
    }
    expect(reads).toBe(0)
    advance(1000)
    expect(reads).toBe(1)
    expect(calls.map(({ draft }) => draft)).toEqual(["hello"])
    // Typed while the save is in flight: read when the next save starts, the newest then.
    content += " world"
    queue.edit(read)
    content += "!"
    queue.edit(read)
    await calls[0]!.answer({ _tag: "saved", version: 2 })
    await settle()
    expect(reads).toBe(1)
    advance(1000)
    expect(reads).toBe(2)
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["hello", 1], ["hello world!", 2]])
  })

  it("onSaved sees the queue clean when the save held the newest content, and dirty when the author typed meanwhile", async () => {
    const { timers, advance } = manualTimers()
    const { calls, save } = manualSaves<string>()
    const dirtyWhenSaved: Array<[string, boolean]> = []
    const queue = makeSaveQueue<string>({
      version: 1,
      save,
      timers,
      onStatus: () => {},
      onSaved: (_version, draft) => dirtyWhenSaved.push([draft, queue.dirty])
    })
    queue.edit(() => "one")
    advance(1000)
    await calls[0]!.answer({ _tag: "saved", version: 2 })
    await settle()
    queue.edit(() => "two")
    advance(1000)
    queue.edit(() => "two, three")
    await calls[1]!.answer({ _tag: "saved", version: 3 })
    await settle()
    expect(dirtyWhenSaved).toEqual([["one", false], ["two", true]])
  })

  it("a save that answers while the author is still typing leaves the rest unsaved until the quiet time passes", async () => {
    const { queue, calls, statuses, advance } = setUp(1)
    queue.edit(() => "x")
    advance(1000)
    queue.edit(() => "xy")
    await calls[0]!.answer({ _tag: "saved", version: 2 })
    await settle()
    expect(statuses.at(-1)).toBe("unsaved")
    expect(calls).toHaveLength(1)
    advance(1000)
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["x", 1], ["xy", 2]])
  })

  it("a failure keeps the content and tries again; an edit meanwhile is what is retried", async () => {
    const { queue, calls, statuses, advance } = setUp(1)
    queue.edit(() => "keep me")
    advance(1000)
    await calls[0]!.answer({ _tag: "failed", message: "The service is unavailable." })
    await settle()
    expect(statuses.at(-1)).toBe("failed")
    expect(queue.dirty).toBe(true)
    advance(5000)
    expect(calls.map(({ draft }) => draft)).toEqual(["keep me", "keep me"])
    await calls[1]!.answer({ _tag: "failed", message: "again" })
    await settle()
    queue.edit(() => "keep me too")
    advance(1000)
    expect(calls.map(({ draft }) => draft)).toEqual(["keep me", "keep me", "keep me too"])
  })

  it("a conflict stops the queue with the author's content kept; keep mine saves it over the current version, use theirs drops it", async () => {
    const { queue, calls, statuses, advance } = setUp(5)
    queue.edit(() => "mine")
    advance(1000)
    await calls[0]!.answer({ _tag: "conflict", current: { title: "theirs" }, currentVersion: 7 })
    await settle()
    expect(statuses.at(-1)).toBe("conflict")
    // Edits while the dialog is open are kept, not sent.
    queue.edit(() => "mine, more")
    advance(10_000)
    expect(calls).toHaveLength(1)
    queue.keepMine(7)
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["mine", 5], ["mine, more", 7]])
    await calls[1]!.answer({ _tag: "conflict", current: { title: "newer" }, currentVersion: 8 })
    await settle()
    queue.useTheirs(8)
    expect(queue.dirty).toBe(false)
    expect(queue.version).toBe(8)
    expect(statuses.at(-1)).toBe("saved")
    advance(10_000)
    expect(calls).toHaveLength(2)
  })

  it("flush saves at once; nothing is saved after dispose", async () => {
    const { queue, calls, advance } = setUp(1)
    queue.edit(() => "now")
    queue.flush()
    expect(calls.map(({ draft }) => draft)).toEqual(["now"])
    queue.edit(() => "later")
    queue.dispose()
    advance(10_000)
    expect(calls).toHaveLength(1)
  })
})

describe("other writes in the autosave's lane", () => {
  it("a publish waits for the save in flight and the content typed since, then names the newest version; typing meanwhile goes after it", async () => {
    const { queue, calls, advance } = setUp(1)
    const published: Array<number> = []
    queue.edit(() => "a")
    advance(1000)
    queue.edit(() => "ab")
    const publish = queue.write((version) => (published.push(version), Promise.resolve({ _tag: "saved", version: version + 1 } as const)))
    expect(published).toEqual([])
    await calls[0]!.answer({ _tag: "saved", version: 2 })
    await settle()
    // The newer content first, at once (no quiet time), then the publish.
    expect(calls.map(({ draft, version }) => [draft, version])).toEqual([["a", 1], ["ab", 2]])
    expect(published).toEqual([])
    await calls[1]!.answer({ _tag: "saved", version: 3 })
    await settle()
    expect(published).toEqual([3])
    expect(await publish).toEqual({ _tag: "saved", version: 4 })
    expect(queue.version).toBe(4)
    queue.edit(() => "abc")
    advance(1000)
    expect(calls.at(-1)).toMatchObject({ draft: "abc", version: 4 })
  })

  it("a write's conflict stops the lane as a save's does; a failed write is the caller's and the lane goes on", async () => {
    const { queue, statuses } = setUp(1)
    expect(await queue.write(() => Promise.resolve({ _tag: "failed", message: "nope" }))).toEqual({ _tag: "failed", message: "nope" })
    await settle()
    expect(statuses.at(-1)).toBe("saved")
    expect(await queue.write(() => Promise.resolve({ _tag: "conflict", current: {}, currentVersion: 9 }))).toMatchObject({ _tag: "conflict" })
    await settle()
    expect(statuses.at(-1)).toBe("conflict")
    expect(queue.version).toBe(1)
  })
})
