/**
 * MD5 of bytes, lower-case hex (RFC 1321). The core runs without Node's `crypto`, and
 * Web Crypto has no MD5 (and only an asynchronous digest); the memory store needs it for
 * the ETags S3 gives parts, the memory course repository to hash its version with a
 * secret salt as the database does. Not for signatures.
 *
 * @internal
 */

const shifts = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
const constants = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0)

/** The MD5 digest of `bytes`, 32 lower-case hex digits. */
export const md5Hex = (bytes: Uint8Array): string => {
  const length = bytes.byteLength
  // The message, a 1 bit, zeros, and the bit length (64 bits, little-endian): a multiple of 64 bytes.
  const padded = new Uint8Array((((length + 8) >>> 6) + 1) * 64)
  padded.set(bytes)
  padded[length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.byteLength - 8, (length * 8) >>> 0, true)
  view.setUint32(padded.byteLength - 4, Math.floor(length / 2 ** 29), true)
  let [a0, b0, c0, d0] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]
  const words = new Uint32Array(16)
  for (let block = 0; block < padded.byteLength; block += 64) {
    for (let i = 0; i < 16; i++) words[i] = view.getUint32(block + i * 4, true)
    let [a, b, c, d] = [a0, b0, c0, d0]
    for (let i = 0; i < 64; i++) {
      let f: number
      let g: number
      if (i < 16) {
        f = (b & c) | (~b & d)
        g = i
      } else if (i < 32) {
        f = (d & b) | (~d & c)
        g = (5 * i + 1) % 16
      } else if (i < 48) {
        f = b ^ c ^ d
        g = (3 * i + 5) % 16
      } else {
        f = c ^ (b | ~d)
        g = (7 * i) % 16
      }
      const sum = (a + f + constants[i]! + words[g]!) >>> 0
      const shift = shifts[(i >>> 4) * 4 + (i % 4)]!
      a = d
      d = c
      c = b
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) >>> 0
    }
    a0 = (a0 + a) >>> 0
    b0 = (b0 + b) >>> 0
    c0 = (c0 + c) >>> 0
    d0 = (d0 + d) >>> 0
  }
  const digest = new DataView(new ArrayBuffer(16))
  ;[a0, b0, c0, d0].forEach((word, i) => digest.setUint32(i * 4, word, true))
  return Array.from(new Uint8Array(digest.buffer), (byte) => byte.toString(16).padStart(2, "0")).join("")
}
