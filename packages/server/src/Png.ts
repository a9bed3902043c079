/**
 * PNG images drawn in code (8-bit RGB): the demo's thumbnail, and images for tests. No
 * image library; `node:zlib` compresses.
 *
 * @since 0.1.0
 */
import { crc32, deflateSync } from "node:zlib"

const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A `width`×`height` PNG whose pixel at (x, y) is `colourAt(x, y)` ([r, g, b], 0–255).
 * `compression` is zlib's level: 0 keeps the file as large as its pixels (for tests that
 * need bytes to move).
 */
export const encode = (
  width: number,
  height: number,
  colourAt: (x: number, y: number) => readonly [number, number, number],
  compression = 6
): Buffer<ArrayBuffer> => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3))
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(colourAt(x, y), y * (1 + width * 3) + 1 + x * 3)
  }
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: compression })), chunk("IEND", Buffer.alloc(0))]) as Buffer<ArrayBuffer>
}
