/**
 * Large test files on disk without holding them in memory: deterministic pseudo-random
 * bytes written in chunks, and SHA-256 computed as a stream is read.
 */
import { createCipheriv, createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { open } from "node:fs/promises"

const chunkBytes = 4 * 1024 * 1024

/**
 * Writes `size` bytes to a new file at `path`: the AES-128-CTR keystream of `seed`, so
 * the same seed gives the same bytes, no two parts of the file are alike (a part swapped
 * for another changes the hash) and it is written at disk speed. Answers the bytes' SHA-256.
 */
export const writePseudoRandomFile = async (path: string, size: number, seed: number): Promise<string> => {
  const key = createHash("sha256").update(`coursekit-test-file-${seed}`).digest().subarray(0, 16)
  const keystream = createCipheriv("aes-128-ctr", key, Buffer.alloc(16))
  const zeros = Buffer.alloc(chunkBytes)
  const hash = createHash("sha256")
  const file = await open(path, "wx")
  try {
    for (let written = 0; written < size;) {
      const chunk = keystream.update(zeros.subarray(0, Math.min(chunkBytes, size - written)))
      hash.update(chunk)
      for (let offset = 0; offset < chunk.byteLength;) offset += (await file.write(chunk, offset)).bytesWritten
      written += chunk.byteLength
    }
  } finally {
    await file.close()
  }
  return hash.digest("hex")
}

/** The SHA-256 of the bytes `stream` yields, read chunk by chunk. */
export const sha256OfStream = async (stream: AsyncIterable<Uint8Array>): Promise<string> => {
  const hash = createHash("sha256")
  for await (const chunk of stream) hash.update(chunk)
  return hash.digest("hex")
}

/** The SHA-256 of the file at `path`, streamed. */
export const sha256OfFile = (path: string): Promise<string> => sha256OfStream(createReadStream(path))
