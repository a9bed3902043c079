/**
 * Short MP4 videos drawn in code: the demo's lecture clips (issue #37), made at start so
 * nothing is downloaded and nothing but the server's own files is needed. No encoder:
 * every frame is an H.264 intra picture of `I_PCM` macroblocks (raw 4:2:0 samples, which
 * every H.264 decoder must accept; ITU-T H.264 §7.3.5), Constrained Baseline profile, an
 * IDR picture (a key frame) at the start of each second, in an MP4 whose index comes
 * first, so a player starts at once and seeks by Range. The price is size: 384 bytes per
 * 16×16 block, so keep the picture small and the rate low (256×144 at 2 frames a second
 * is ~110 KB a second).
 */

/** Writes the bits of H.264's syntax elements: u(n), ue(v), se(v) (§7.2, §9.1). */
class BitWriter {
  private readonly bytes: Array<number> = []
  private current = 0
  private used = 0

  bit(value: number) {
    this.current = (this.current << 1) | (value & 1)
    if (++this.used === 8) {
      this.bytes.push(this.current)
      this.current = 0
      this.used = 0
    }
  }

  /** u(n): `value` in `count` bits, most significant first. */
  u(count: number, value: number) {
    for (let shift = count - 1; shift >= 0; shift--) this.bit((value >>> shift) & 1)
  }

  /** ue(v): Exp-Golomb, unsigned. */
  ue(value: number) {
    const coded = value + 1
    const length = 32 - Math.clz32(coded)
    this.u(length - 1, 0)
    this.u(length, coded)
  }

  /** se(v): Exp-Golomb, signed (positive k → 2k − 1, negative → −2k). */
  se(value: number) {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value)
  }

  get aligned() {
    return this.used === 0
  }

  /** Whole bytes, written as they are (only when aligned). */
  raw(bytes: Uint8Array) {
    for (const byte of bytes) this.bytes.push(byte)
  }

  /** rbsp_trailing_bits(): a one, then zeros to the byte's end. */
  trailing(): Uint8Array {
    this.bit(1)
    while (!this.aligned) this.bit(0)
    return Uint8Array.from(this.bytes)
  }
}

/** A NAL unit's bytes: its header, then the payload with emulation prevention (§7.4.1.1). */
const nalUnit = (refIdc: number, type: number, payload: Uint8Array): Uint8Array => {
  const out: Array<number> = [(refIdc << 5) | type]
  let zeros = 0
  for (const byte of payload) {
    // Two zeros then a byte of 0–3 would read as a start code: a 3 goes between.
    if (zeros === 2 && byte <= 3) {
      out.push(3)
      zeros = 0
    }
    out.push(byte)
    zeros = byte === 0 ? zeros + 1 : 0
  }
  return Uint8Array.from(out)
}

const profileIdc = 66 // Baseline
const constraintFlags = 0xc0 // constraint_set0 and constraint_set1: Constrained Baseline
const levelIdc = 30 // 3.0: up to 1,620 macroblocks a frame
const log2MaxFrameNum = 8 // frame_num counts the pictures since the last IDR picture, up to 255

const sequenceParameterSet = (widthInBlocks: number, heightInBlocks: number) => {
  const bits = new BitWriter()
  bits.u(8, profileIdc)
  bits.u(8, constraintFlags)
  bits.u(8, levelIdc)
  bits.ue(0) // seq_parameter_set_id
  bits.ue(log2MaxFrameNum - 4)
  bits.ue(2) // pic_order_cnt_type 2: output order is decoding order
  bits.ue(1) // max_num_ref_frames
  bits.u(1, 0) // gaps_in_frame_num_value_allowed_flag
  bits.ue(widthInBlocks - 1)
  bits.ue(heightInBlocks - 1)
  bits.u(1, 1) // frame_mbs_only_flag
  bits.u(1, 1) // direct_8x8_inference_flag
  bits.u(1, 0) // frame_cropping_flag
  bits.u(1, 0) // vui_parameters_present_flag
  return nalUnit(3, 7, bits.trailing())
}

const pictureParameterSet = () => {
  const bits = new BitWriter()
  bits.ue(0) // pic_parameter_set_id
  bits.ue(0) // seq_parameter_set_id
  bits.u(1, 0) // entropy_coding_mode_flag: CAVLC
  bits.u(1, 0) // bottom_field_pic_order_in_frame_present_flag
  bits.ue(0) // num_slice_groups_minus1
  bits.ue(0) // num_ref_idx_l0_default_active_minus1
  bits.ue(0) // num_ref_idx_l1_default_active_minus1
  bits.u(1, 0) // weighted_pred_flag
  bits.u(2, 0) // weighted_bipred_idc
  bits.se(0) // pic_init_qp_minus26
  bits.se(0) // pic_init_qs_minus26
  bits.se(0) // chroma_qp_index_offset
  bits.u(1, 0) // deblocking_filter_control_present_flag (PCM blocks are not filtered: qP 0)
  bits.u(1, 0) // constrained_intra_pred_flag
  bits.u(1, 0) // redundant_pic_cnt_present_flag
  return nalUnit(3, 8, bits.trailing())
}

const iPcm = 25 // mb_type of an I_PCM macroblock in an I slice (Table 7-11)

/**
 * One picture: a slice of `I_PCM` macroblocks holding `planes` (Y, Cb, Cr), the
 * `sinceKey`-th picture after the last IDR picture (0: this one is IDR, the `key`-th).
 * Pictures after an IDR one are intra too, but count on from it (frame_num, and so the
 * order a decoder outputs them in: pic_order_cnt_type 2); a run of IDR pictures would
 * all be picture 0, and players seeking among them show the wrong one.
 */
const intraSlice = (key: number, sinceKey: number, planes: Planes) => {
  const idr = sinceKey === 0
  const bits = new BitWriter()
  bits.ue(0) // first_mb_in_slice
  bits.ue(7) // slice_type: I, as every slice of the picture
  bits.ue(0) // pic_parameter_set_id
  bits.u(log2MaxFrameNum, sinceKey) // frame_num
  if (idr) bits.ue(key % 2) // idr_pic_id: consecutive IDR pictures differ
  if (idr) {
    bits.u(1, 0) // no_output_of_prior_pics_flag
    bits.u(1, 0) // long_term_reference_flag
  } else {
    bits.u(1, 0) // adaptive_ref_pic_marking_mode_flag: the sliding window
  }
  bits.se(0) // slice_qp_delta
  const { width, height, y, cb, cr } = planes
  const block = new Uint8Array(384)
  for (let blockY = 0; blockY < height / 16; blockY++) {
    for (let blockX = 0; blockX < width / 16; blockX++) {
      bits.ue(iPcm)
      while (!bits.aligned) bits.bit(0) // pcm_alignment_zero_bit
      let at = 0
      for (let row = 0; row < 16; row++) {
        const start = (blockY * 16 + row) * width + blockX * 16
        block.set(y.subarray(start, start + 16), at)
        at += 16
      }
      for (const plane of [cb, cr]) {
        for (let row = 0; row < 8; row++) {
          const start = (blockY * 8 + row) * (width / 2) + blockX * 8
          block.set(plane.subarray(start, start + 8), at)
          at += 8
        }
      }
      bits.raw(block)
    }
  }
  return nalUnit(3, idr ? 5 : 1, bits.trailing())
}

interface Planes {
  readonly width: number
  readonly height: number
  readonly y: Uint8Array
  readonly cb: Uint8Array
  readonly cr: Uint8Array
}

type Colour = readonly [number, number, number]

/** BT.601 limited range, as decoders assume without colour information; each chroma sample the mean of its 2×2 pixels. */
const planesOf = (width: number, height: number, colourAt: (x: number, y: number) => Colour): Planes => {
  const y = new Uint8Array(width * height)
  const half = width / 2
  const cb = new Float64Array(half * (height / 2))
  const cr = new Float64Array(half * (height / 2))
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const [r, g, b] = colourAt(column, row)
      y[row * width + column] = Math.round(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
      const chroma = (row >> 1) * half + (column >> 1)
      cb[chroma]! += (-37.797 * r - 74.203 * g + 112 * b) / 255 / 4
      cr[chroma]! += (112 * r - 93.786 * g - 18.214 * b) / 255 / 4
    }
  }
  const sample = (plane: Float64Array) => Uint8Array.from(plane, (value) => Math.round(128 + value))
  return { width, height, y, cb: sample(cb), cr: sample(cr) }
}

// --- the MP4 container (ISO/IEC 14496-12 and -15) ---------------------------------------

const box = (type: string, ...parts: ReadonlyArray<Uint8Array>): Buffer => {
  const body = Buffer.concat(parts)
  const header = Buffer.alloc(8)
  header.writeUInt32BE(8 + body.length)
  header.write(type, 4, "latin1")
  return Buffer.concat([header, body])
}

/** A full box: a version byte and 24 bits of flags before its fields. */
const fullBox = (type: string, version: number, flags: number, ...parts: ReadonlyArray<Uint8Array>) =>
  box(type, Uint8Array.of(version, flags >>> 16, (flags >>> 8) & 0xff, flags & 0xff), ...parts)

/** Big-endian unsigned integers of 8, 16 or 32 bits. */
const fields = (...values: ReadonlyArray<readonly [bits: 8 | 16 | 32, value: number]>) => {
  const bytes = Buffer.alloc(values.reduce((sum, [bits]) => sum + bits / 8, 0))
  let at = 0
  for (const [bits, value] of values) {
    if (bits === 8) bytes.writeUInt8(value, at)
    else if (bits === 16) bytes.writeUInt16BE(value, at)
    else bytes.writeUInt32BE(value >>> 0, at)
    at += bits / 8
  }
  return bytes
}

/** The identity transform of `mvhd` and `tkhd`. */
const unityMatrix = fields([32, 0x00010000], [32, 0], [32, 0], [32, 0], [32, 0x00010000], [32, 0], [32, 0], [32, 0], [32, 0x40000000])

const timescale = 1000

const movie = (
  width: number,
  height: number,
  sps: Uint8Array,
  pps: Uint8Array,
  sampleSizes: ReadonlyArray<number>,
  framesPerSecond: number,
  dataOffset: number
) => {
  const frameMillis = timescale / framesPerSecond
  // The key frames, numbered from 1: the first of each second.
  const keys = sampleSizes.flatMap((_, index) => index % framesPerSecond === 0 ? [index + 1] : [])
  const duration = sampleSizes.length * frameMillis
  const mvhd = fullBox("mvhd", 0, 0, fields([32, 0], [32, 0], [32, timescale], [32, duration], [32, 0x00010000], [16, 0x0100], [16, 0], [32, 0], [32, 0]), unityMatrix, Buffer.alloc(24), fields([32, 2]))
  const tkhd = fullBox("tkhd", 0, 3, fields([32, 0], [32, 0], [32, 1], [32, 0], [32, duration], [32, 0], [32, 0], [16, 0], [16, 0], [16, 0], [16, 0]), unityMatrix, fields([32, width << 16], [32, height << 16]))
  const mdhd = fullBox("mdhd", 0, 0, fields([32, 0], [32, 0], [32, timescale], [32, duration], [16, 0x55c4], [16, 0])) // language "und"
  const hdlr = fullBox("hdlr", 0, 0, fields([32, 0]), Buffer.from("vide", "latin1"), Buffer.alloc(12), Buffer.from("VideoHandler\0", "latin1"))
  const vmhd = fullBox("vmhd", 0, 1, fields([16, 0], [16, 0], [16, 0], [16, 0]))
  const dinf = box("dinf", fullBox("dref", 0, 0, fields([32, 1]), fullBox("url ", 0, 1)))
  const avcC = box(
    "avcC",
    fields([8, 1], [8, profileIdc], [8, constraintFlags], [8, levelIdc], [8, 0xff], [8, 0xe1], [16, sps.length]), // 4-byte lengths, one SPS
    sps,
    fields([8, 1], [16, pps.length]),
    pps
  )
  const avc1 = box(
    "avc1",
    Buffer.alloc(6),
    fields([16, 1]), // data_reference_index
    Buffer.alloc(16),
    fields([16, width], [16, height], [32, 0x00480000], [32, 0x00480000], [32, 0], [16, 1]), // 72 dpi, one frame a sample
    Buffer.alloc(32), // compressorname
    fields([16, 0x0018], [16, 0xffff]), // depth, pre_defined
    avcC
  )
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, fields([32, 1]), avc1),
    fullBox("stts", 0, 0, fields([32, 1], [32, sampleSizes.length], [32, frameMillis])),
    fullBox("stsc", 0, 0, fields([32, 1], [32, 1], [32, sampleSizes.length], [32, 1])), // one chunk of every sample
    fullBox("stss", 0, 0, fields([32, keys.length]), ...keys.map((key) => fields([32, key]))),
    fullBox("stsz", 0, 0, fields([32, 0], [32, sampleSizes.length]), ...sampleSizes.map((size) => fields([32, size]))),
    fullBox("stco", 0, 0, fields([32, 1], [32, dataOffset]))
  )
  return box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, box("minf", vmhd, dinf, stbl))))
}

/**
 * An MP4 of `seconds` at `framesPerSecond` (which must divide 1000), `width`×`height`
 * (multiples of 16), whose pixel at (x, y) in frame `frame` (from 0) is `colourAt(frame,
 * x, y)` ([r, g, b], 0–255). Every frame is a key frame.
 */
export const encode = (
  options: { readonly width: number; readonly height: number; readonly framesPerSecond: number; readonly seconds: number },
  colourAt: (frame: number, x: number, y: number) => Colour
): Buffer<ArrayBuffer> => {
  const { framesPerSecond, height, seconds, width } = options
  if (width % 16 !== 0 || height % 16 !== 0) throw new RangeError(`${width}×${height}: both sides must be multiples of 16`)
  if (timescale % framesPerSecond !== 0 || framesPerSecond > 2 ** log2MaxFrameNum) {
    throw new RangeError(`${framesPerSecond} frames a second: it must divide ${timescale}`)
  }
  const sps = sequenceParameterSet(width / 16, height / 16)
  const pps = pictureParameterSet()
  // Each sample: the picture's NAL unit after its 4-byte length.
  const samples = Array.from({ length: framesPerSecond * seconds }, (_, frame) => {
    const nal = intraSlice(Math.floor(frame / framesPerSecond), frame % framesPerSecond, planesOf(width, height, (x, y) => colourAt(frame, x, y)))
    return Buffer.concat([fields([32, nal.length]), nal])
  })
  const ftyp = box("ftyp", Buffer.from("isom", "latin1"), fields([32, 0x200]), Buffer.from("isomiso2avc1mp41", "latin1"))
  const sizes = samples.map((sample) => sample.length)
  // The index's size does not depend on the offset it holds: measure it, then write it.
  const moovSize = movie(width, height, sps, pps, sizes, framesPerSecond, 0).length
  const moov = movie(width, height, sps, pps, sizes, framesPerSecond, ftyp.length + moovSize + 8)
  return Buffer.concat([ftyp, moov, box("mdat", ...samples)]) as Buffer<ArrayBuffer>
}
