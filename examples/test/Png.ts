/** A real PNG of `size`×`size` pixels, a colour gradient, stored uncompressed (so its bytes are as many as its pixels). */
import { Png } from "@coursekit/server"

export const png = (size: number): Buffer => Png.encode(size, size, (x, y) => [(x * 7 + y) % 256, (y * 13) % 256, (x * y) % 256], 0)
