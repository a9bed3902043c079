/**
 * The MP4s `Mp4Video` draws (the demo's lecture clip): the boxes a player reads, in the
 * order that lets it start at once, and an index that matches the data. That chromium
 * plays them is `Mp4Video.browser.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { lectureClip } from "../src/DemoData.ts"
import * as Mp4Video from "../src/internal/Mp4Video.ts"

/** The boxes in `bytes` from `start` to `end`: type, where its body starts, its size. */
const boxes = (bytes: Buffer, start = 0, end = bytes.length) => {
  const found: Array<{ type: string; body: number; size: number }> = []
  for (let at = start; at < end;) {
    const size = bytes.readUInt32BE(at)
    found.push({ type: bytes.toString("latin1", at + 4, at + 8), body: at + 8, size })
    at += size
  }
  return found
}
const child = (bytes: Buffer, parent: { body: number; size: number }, path: ReadonlyArray<string>): { body: number; size: number } => {
  const [first, ...rest] = path
  const found = boxes(bytes, parent.body, parent.body - 8 + parent.size).find((box) => box.type === first)
  if (found === undefined) throw new Error(`no ${first}`)
  return rest.length === 0 ? found : child(bytes, found, rest)
}

describe("Mp4Video", () => {
  it("the demo's clip: ftyp, the index (moov) before the data (mdat), 32 samples of 500 ms whose sizes and offset match the data, a key frame each second", () => {
    const clip = lectureClip()
    const top = boxes(clip)
    expect(top.map((box) => box.type)).toEqual(["ftyp", "moov", "mdat"])
    expect(top.reduce((sum, box) => sum + box.size, 0)).toBe(clip.length)
    const stbl = child(clip, top[1]!, ["trak", "mdia", "minf", "stbl"])
    const table = (type: string) => child(clip, stbl, [type])
    // stts: one run of 32 samples of 500 (ms: the timescale is 1000).
    const stts = table("stts").body + 4
    expect([clip.readUInt32BE(stts), clip.readUInt32BE(stts + 4), clip.readUInt32BE(stts + 8)]).toEqual([1, 32, 500])
    const mvhd = child(clip, top[1]!, ["mvhd"]).body + 4
    expect([clip.readUInt32BE(mvhd + 8), clip.readUInt32BE(mvhd + 12)]).toEqual([1000, 16_000])
    // stss: samples 1, 3, 5, … (the first of each second).
    const stss = table("stss").body + 4
    const keys = Array.from({ length: clip.readUInt32BE(stss) }, (_, index) => clip.readUInt32BE(stss + 4 + index * 4))
    expect(keys).toEqual(Array.from({ length: 16 }, (_, second) => second * 2 + 1))
    // stsz and stco: each sample where the index says, a NAL unit of the length it gives.
    const stsz = table("stsz").body + 4
    const sizes = Array.from({ length: clip.readUInt32BE(stsz + 4) }, (_, index) => clip.readUInt32BE(stsz + 8 + index * 4))
    expect(sizes.length).toBe(32)
    const stco = table("stco").body + 4
    let at = clip.readUInt32BE(stco + 4)
    expect(at).toBe(top[2]!.body)
    const nalTypes: Array<number> = []
    for (const size of sizes) {
      expect(clip.readUInt32BE(at)).toBe(size - 4)
      nalTypes.push(clip[at + 4]! & 0x1f)
      at += size
    }
    expect(at).toBe(clip.length)
    // IDR (5) at each key frame, a non-IDR picture (1) between.
    expect(nalTypes).toEqual(Array.from({ length: 32 }, (_, index) => (index % 2 === 0 ? 5 : 1)))
    // avcC: Constrained Baseline (66, 0xc0) level 3.0, with its SPS (NAL type 7) of 256×144.
    const avc1 = child(clip, stbl, ["stsd"]).body + 8
    expect([clip.readUInt16BE(avc1 + 8 + 24), clip.readUInt16BE(avc1 + 8 + 26)]).toEqual([256, 144])
    // The sample entry's 78 bytes of fields, then its avcC box.
    const [avcC] = boxes(clip, avc1 + 8 + 78, avc1 + clip.readUInt32BE(avc1))
    expect(avcC!.type).toBe("avcC")
    expect([...clip.subarray(avcC!.body, avcC!.body + 6)]).toEqual([1, 66, 0xc0, 30, 0xff, 0xe1])
    expect(clip[avcC!.body + 8]! & 0x1f).toBe(7)
  })

  it("refuses sides that are not multiples of 16 and a frame rate that does not divide a second", () => {
    const grey = () => [128, 128, 128] as const
    expect(() => Mp4Video.encode({ width: 100, height: 64, framesPerSecond: 1, seconds: 1 }, grey)).toThrow("100×64: both sides must be multiples of 16")
    expect(() => Mp4Video.encode({ width: 64, height: 64, framesPerSecond: 3, seconds: 1 }, grey)).toThrow("3 frames a second: it must divide 1000")
  })
})
