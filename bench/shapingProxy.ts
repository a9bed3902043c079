/**
 * A loopback TCP proxy that behaves like a long link, for `upload-multipart.ts`: one
 * link rate shared by every connection through it, a round-trip time, and a window per
 * connection — what limits one TCP stream on a real network and why uploaders send
 * parts in parallel.
 *
 * The model, for bytes from the client to the upstream (the upload direction):
 *   - a connection may send only a round trip after it was accepted (the handshake);
 *   - bytes leave through one token bucket at `rateBytesPerSecond`, shared by every
 *     connection of the link, so N connections together never get more than the link;
 *     taken round-robin, 16 KiB at a time: fair queueing between connections, as
 *     `fq_codel` (the usual Linux default) does, so parts started together end together;
 *   - a connection has at most `windowBytes` out and unacknowledged: bytes reach the
 *     upstream RTT/2 after they leave, and their acknowledgement (which frees the window)
 *     comes back RTT/2 after the upstream's kernel took them;
 *   - so one connection gets at most min(link, window / RTT), and k of them
 *     min(link, k · window / RTT). TCP's slow start is not modelled: the window is full
 *     from the first byte (on a keep-alive connection it would be after the first parts).
 * Bytes from the upstream back to the client (answers, a few hundred bytes) are only
 * delayed by RTT/2. The proxy reads the HTTP/1.1 requests it carries (request line and
 * `Content-Length`; a chunked body is refused, as storage refuses one) and counts the
 * body bytes it delivered per `partNumber` (0: a request with none), so a run can tell
 * what was sent twice.
 *
 * {@link checkShape} is the self-check: it drives the proxy with raw sockets into a sink
 * and measures what comes out.
 */
import * as net from "node:net"

export interface LinkShape {
  /** The link's rate in bytes per second, shared by every connection. */
  readonly rateBytesPerSecond: number
  /** The round-trip time in milliseconds (0: none). */
  readonly rttMs: number
  /** The most bytes one connection may have unacknowledged. */
  readonly windowBytes: number
}

/** What one connection can carry by itself, and k connections together, in bytes per second. */
export const idealRate = (shape: LinkShape, connections: number) =>
  shape.rttMs === 0
    ? shape.rateBytesPerSecond
    : Math.min(shape.rateBytesPerSecond, (connections * shape.windowBytes) / (shape.rttMs / 1000))

const chunkBytes = 16 * 1024
/** Read from a client at most this far ahead of the link: its send buffer, as it were. */
const aheadBytes = 256 * 1024
/**
 * Tokens saved up: 50 ms of the link. A real link runs while this process waits for a
 * core (on a loaded machine, tens of ms at a time); what it would have carried meanwhile
 * is sent once the proxy runs again, up to 50 ms of it. Beyond that it is lost, and counted.
 */
const burstSeconds = 0.05

/** Counts the HTTP request bodies one connection carries, by `partNumber`. */
class RequestReader {
  private head: Buffer = Buffer.alloc(0)
  private bodyLeft = 0
  private part = 0
  private put = false
  private readonly carried: (part: number, bytes: number) => void
  private readonly putSent: () => void
  /** `carried`: body bytes as they pass; `putSent`: a PUT's last byte has passed. */
  constructor(carried: (part: number, bytes: number) => void, putSent: () => void) {
    this.carried = carried
    this.putSent = putSent
  }

  read(chunk: Buffer): void {
    let rest = chunk
    while (rest.byteLength > 0) {
      if (this.bodyLeft > 0) {
        const body = Math.min(this.bodyLeft, rest.byteLength)
        this.bodyLeft -= body
        this.carried(this.part, body)
        rest = rest.subarray(body)
        if (this.bodyLeft === 0 && this.put) this.putSent()
        continue
      }
      this.head = Buffer.concat([this.head, rest])
      const end = this.head.indexOf("\r\n\r\n")
      if (end === -1) {
        if (this.head.byteLength > 64 * 1024) throw new Error("an HTTP request head over 64 KiB")
        return
      }
      const lines = this.head.subarray(0, end).toString("latin1").split("\r\n")
      rest = this.head.subarray(end + 4)
      this.head = Buffer.alloc(0)
      const target = lines[0]!.split(" ")[1] ?? "/"
      this.part = Number(new URL(target, "http://proxy").searchParams.get("partNumber") ?? 0)
      const header = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim()
      if (header("transfer-encoding") !== undefined) throw new Error(`a chunked request through the shaping proxy: ${lines[0]}`)
      this.bodyLeft = Number(header("content-length") ?? 0)
      this.put = lines[0]!.startsWith("PUT ")
      if (this.bodyLeft === 0 && this.put) this.putSent()
    }
  }
}

/** One connection through the link. */
interface Flow {
  readonly client: net.Socket
  readonly upstream: net.Socket
  /** Destroys both sockets, dropping what the link still holds. */
  readonly drop: () => void
  readonly reader: RequestReader
  readonly pending: Array<Buffer>
  pendingBytes: number
  inFlight: number
  open: boolean
  clientEnded: boolean
  /** When its last PUT's last byte reached the upstream, until the answer's first byte. */
  putSentAt: number | undefined
  /** When that answer reached the client, until the client's next byte. */
  answeredAt: number | undefined
  upstreamEnding: boolean
  gone: boolean
}

export interface ShapedLink {
  readonly shape: LinkShape
  /** Listens on 127.0.0.1 (a free port) and carries each connection to `upstreamPort` over the link; answers the port. */
  readonly listen: (upstreamPort: number) => Promise<number>
  /** Body bytes delivered to upstreams since the last reset, by `partNumber` (0: requests with none). */
  readonly carried: () => ReadonlyMap<number, number>
  /** Total request body bytes delivered since the last reset. */
  readonly carriedTotal: () => number
  /**
   * Since the last reset, per PUT: milliseconds from its last byte at the upstream to the
   * answer's first byte (the store's time), and from the answer at the client to the
   * client's next request on that connection (the uploader's time between parts).
   */
  readonly timings: () => {
    readonly storeMs: ReadonlyArray<number>
    readonly clientMs: ReadonlyArray<number>
    readonly connections: number
    /** Link capacity lost while this process was kept from running longer than the tokens it may save up, in bytes. */
    readonly lostBytes: number
  }
  readonly resetCounts: () => void
  /**
   * Cuts every connection now: what the link has not delivered is lost, as when the
   * client's machine dies. (A killed process's kernel would still send its socket
   * buffers; on loopback those and the proxy's own receive buffers hold megabytes per
   * connection, far more than is on its way on a real link, so they are dropped.)
   */
  readonly cut: () => void
  /** Called after each delivery with the total body bytes carried since the last reset. */
  onCarried: ((total: number) => void) | undefined
  readonly close: () => Promise<void>
}

/** A link of `shape`; {@link ShapedLink.listen} puts a proxy in front of an upstream. */
export const shapedLink = (shape: LinkShape): ShapedLink => {
  const half = shape.rttMs / 2
  /** `run` RTT/2 from now; at once without a round trip. Timers of one duration fire in order, so bytes stay in order. */
  const afterHalfRtt = (run: () => void) => (half === 0 ? run() : void setTimeout(run, half))
  const servers: Array<net.Server> = []
  const flows = new Set<Flow>()
  let byPart = new Map<number, number>()
  let total = 0
  let storeMs: Array<number> = []
  let clientMs: Array<number> = []
  let connections = 0

  let tokens = shape.rateBytesPerSecond * burstSeconds
  let refilledAt = performance.now()
  let rotation: Array<Flow> = []
  let turn = 0
  let scheduled = false
  /** Whether the last pump left connections waiting for tokens: the link was busy, and a refill past the cap is lost. */
  let backlogged = false
  let lostBytes = 0

  const sendable = (flow: Flow) => flow.open && !flow.gone && flow.pendingBytes > 0 && flow.inFlight < shape.windowBytes

  const take = (flow: Flow, bytes: number): Buffer => {
    const parts: Array<Buffer> = []
    let left = bytes
    while (left > 0) {
      const first = flow.pending[0]!
      if (first.byteLength <= left) {
        parts.push(flow.pending.shift()!)
        left -= first.byteLength
      } else {
        parts.push(first.subarray(0, left))
        flow.pending[0] = first.subarray(left)
        left = 0
      }
    }
    flow.pendingBytes -= bytes
    if (flow.pendingBytes < aheadBytes / 2 && flow.client.isPaused()) flow.client.resume()
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }

  const deliver = (flow: Flow, chunk: Buffer) => {
    if (flow.gone) return
    flow.upstream.write(chunk, () =>
      afterHalfRtt(() => {
        flow.inFlight -= chunk.byteLength
        kick()
      })
    )
    // Counted once written: `onCarried` may cut the link.
    flow.reader.read(chunk)
  }

  const endUpstreamOnceSent = (flow: Flow) => {
    if (flow.clientEnded && flow.pendingBytes === 0 && !flow.upstreamEnding) {
      flow.upstreamEnding = true
      afterHalfRtt(() => flow.upstream.end())
    }
  }

  /** Sends what the tokens allow, round-robin over the connections that may send. */
  const pump = () => {
    scheduled = false
    const now = performance.now()
    const refilled = tokens + ((now - refilledAt) / 1000) * shape.rateBytesPerSecond
    tokens = Math.min(shape.rateBytesPerSecond * burstSeconds, refilled)
    if (backlogged) lostBytes += refilled - tokens
    backlogged = false
    refilledAt = now
    rotation = [...flows]
    while (tokens > 0) {
      let flow: Flow | undefined
      for (let i = 0; i < rotation.length && flow === undefined; i++) {
        const candidate = rotation[(turn + i) % rotation.length]!
        if (sendable(candidate)) {
          flow = candidate
          turn = (turn + i + 1) % rotation.length
        }
      }
      if (flow === undefined) return
      const bytes = Math.min(chunkBytes, flow.pendingBytes, shape.windowBytes - flow.inFlight)
      // Tokens may go below zero by one chunk: the next send waits until they are paid back.
      tokens -= bytes
      flow.inFlight += bytes
      const chunk = take(flow, bytes)
      const sending = flow
      afterHalfRtt(() => deliver(sending, chunk))
      endUpstreamOnceSent(flow)
    }
    if ([...flows].some(sendable)) {
      scheduled = true
      backlogged = true
      setTimeout(pump, Math.max(1, Math.ceil((-tokens / shape.rateBytesPerSecond) * 1000)))
    }
  }

  function kick() {
    if (scheduled) return
    scheduled = true
    setImmediate(pump)
  }

  const counted = (part: number, bytes: number) => {
    byPart.set(part, (byPart.get(part) ?? 0) + bytes)
    total += bytes
    link.onCarried?.(total)
  }

  const accept = (upstreamPort: number) => (client: net.Socket) => {
    connections++
    const upstream = net.connect(upstreamPort, "127.0.0.1")
    const gone = () => {
      if (flow.gone) return
      flow.gone = true
      flows.delete(flow)
      client.destroy()
      upstream.destroy()
    }
    const flow: Flow = {
      client, upstream, drop: gone, pending: [], pendingBytes: 0, inFlight: 0,
      reader: new RequestReader(counted, () => (flow.putSentAt = performance.now())),
      open: false, clientEnded: false, upstreamEnding: false, gone: false, putSentAt: undefined, answeredAt: undefined
    }
    flows.add(flow)
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    // The handshake: a connection sends its first byte one round trip after it opened.
    setTimeout(() => {
      flow.open = true
      kick()
      endUpstreamOnceSent(flow)
    }, shape.rttMs)
    client.on("data", (chunk: Buffer) => {
      if (flow.answeredAt !== undefined) {
        clientMs.push(performance.now() - flow.answeredAt)
        flow.answeredAt = undefined
      }
      flow.pending.push(chunk)
      flow.pendingBytes += chunk.byteLength
      if (flow.pendingBytes >= aheadBytes) client.pause()
      kick()
    })
    client.on("end", () => {
      flow.clientEnded = true
      if (flow.open) endUpstreamOnceSent(flow)
    })
    // A client gone (killed, reset): what it sent and the link holds is dropped with it.
    client.on("error", gone)
    client.on("close", gone)
    upstream.on("data", (chunk: Buffer) => {
      const answering = flow.putSentAt !== undefined
      if (answering) {
        storeMs.push(performance.now() - flow.putSentAt!)
        flow.putSentAt = undefined
      }
      afterHalfRtt(() => {
        if (flow.gone) return
        client.write(chunk)
        if (answering) flow.answeredAt = performance.now()
      })
    })
    upstream.on("end", () => afterHalfRtt(() => flow.gone || client.end()))
    upstream.on("error", () => afterHalfRtt(gone))
    upstream.on("close", () => afterHalfRtt(() => (client.writableEnded ? undefined : gone())))
  }

  const link: ShapedLink = {
    shape,
    listen: (upstreamPort) =>
      new Promise((resolve, reject) => {
        // Half-open allowed: a client's end of its request must not cut the answer on its way back.
        const server = net.createServer({ allowHalfOpen: true }, accept(upstreamPort))
        servers.push(server)
        server.once("error", reject)
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))
      }),
    carried: () => byPart,
    carriedTotal: () => total,
    timings: () => ({ storeMs, clientMs, connections, lostBytes }),
    resetCounts: () => {
      byPart = new Map()
      total = 0
      storeMs = []
      clientMs = []
      connections = 0
      lostBytes = 0
    },
    cut: () => {
      for (const flow of [...flows]) flow.drop()
    },
    onCarried: undefined,
    close: async () => {
      link.cut()
      await Promise.all(servers.map((server) => new Promise((done) => server.close(done))))
    }
  }
  return link
}

/** One case of {@link checkShape}: `connections` sockets writing as fast as they can through a link of `shape`. */
export interface ShapeCase {
  readonly shape: LinkShape
  readonly connections: number
  /** The rate measured at the sink, all connections together, bytes per second. */
  readonly measured: number
  /** The highest rate over 250 ms at the sink. */
  readonly peak: number
  /** Whether the proxy's count of body bytes is exactly what the sink received. */
  readonly counted: boolean
  /** min(link, connections · window / RTT). */
  readonly expected: number
  /**
   * Within 10 % of `expected`, over the link by at most 2 % (and 25 % in any 250 ms: the
   * bucket saves up 50 ms, the sink's reads come in batches), every byte counted.
   */
  readonly ok: boolean
}

/**
 * The self-check: for each case, sockets write one endless HTTP request each through the
 * link into a sink for `seconds`, and the sink's rate after the first round trips is
 * compared with min(link, connections · window / RTT); then the writers end and the
 * proxy's count of body bytes must be exactly what the sink received.
 */
export const checkShape = async (
  base: Omit<LinkShape, "rttMs">,
  cases: ReadonlyArray<{ readonly rttMs: number; readonly connections: number }>,
  seconds = 2
): Promise<ReadonlyArray<ShapeCase>> => {
  const results: Array<ShapeCase> = []
  for (const { connections, rttMs } of cases) {
    const shape = { ...base, rttMs }
    let received = 0
    const sinkEnded: Array<Promise<void>> = []
    const sink = net.createServer((socket) => {
      sinkEnded.push(new Promise((done) => socket.on("end", done).on("close", done)))
      socket.on("data", (chunk: Buffer) => (received += chunk.byteLength)).on("error", () => undefined).on("end", () => socket.end())
    })
    const sinkPort = await new Promise<number>((done) => sink.listen(0, "127.0.0.1", () => done((sink.address() as net.AddressInfo).port)))
    const link = shapedLink(shape)
    const port = await link.listen(sinkPort)
    const block = Buffer.alloc(64 * 1024, 1)
    // One endless request per socket: the proxy reads HTTP, and its count must match the sink's.
    const head = `PUT /?partNumber=1 HTTP/1.1\r\nContent-Length: ${Number.MAX_SAFE_INTEGER}\r\n\r\n`
    let writing = true
    const sockets = Array.from({ length: connections }, () => {
      const socket = net.connect(port, "127.0.0.1")
      socket.write(head)
      const write = () => {
        while (writing && socket.write(block));
      }
      socket.on("connect", write).on("drain", write).on("error", () => undefined)
      return socket
    })
    // Past the handshake and the first window's round trip, then measured.
    await new Promise((done) => setTimeout(done, 2 * rttMs + 300))
    const from = received
    const start = performance.now()
    // The fastest 250 ms too: the link must not let a burst through either.
    let peak = 0
    let last = { at: start, received }
    const sampler = setInterval(() => {
      const now = performance.now()
      peak = Math.max(peak, (received - last.received) / ((now - last.at) / 1000))
      last = { at: now, received }
    }, 250)
    await new Promise((done) => setTimeout(done, seconds * 1000))
    clearInterval(sampler)
    const measured = (received - from) / ((performance.now() - start) / 1000)
    // Then the writers end, the link delivers what it holds, and every byte must have been counted.
    writing = false
    for (const socket of sockets) socket.end()
    await Promise.all(sinkEnded)
    const counted = link.carriedTotal() + connections * Buffer.byteLength(head)
    await link.close()
    await new Promise((done) => sink.close(done))
    const expected = idealRate(shape, connections)
    results.push({
      shape, connections, measured, peak, expected, counted: counted === received,
      ok: Math.abs(measured - expected) <= 0.1 * expected && measured <= 1.02 * shape.rateBytesPerSecond &&
        peak <= 1.25 * shape.rateBytesPerSecond && counted === received
    })
  }
  return results
}
