/**
 * A loopback TCP proxy in front of PostgreSQL that reads the frontend's messages (as
 * they pass, unchanged) and records what a server runs: each statement executed (a
 * simple `Query`, or a `Bind` of a statement prepared earlier on that connection, named
 * or not) and each round trip (a `Sync` or a `Query`: one wait for the database). The
 * benchmarks use it to print the SQL each server runs per request; no load goes through it.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net"

export interface StatementLog {
  readonly url: string
  /** Statements executed and round trips since the last call. */
  take(): { readonly statements: ReadonlyArray<string>; readonly roundTrips: number }
  /** Where the round trips' time went since the last call (all connections). */
  takeTimings(): RoundTripTimings
  close(): Promise<void>
}

/**
 * Round trips as the proxy saw them: each from the frontend's `Sync` or `Query` to the
 * backend's `ReadyForQuery`, and each wait of an open transaction for the frontend (from a
 * `ReadyForQuery` in a transaction to the frontend's next round trip): the time the client
 * spends between its statements while holding the connection and the transaction's locks.
 * In ms, measured at the proxy (so including its own delays). A round trip sent while
 * another is under way on the connection (pipelining, which the benchmarks' clients do
 * not do) is timed as part of the first.
 */
export interface RoundTripTimings {
  readonly roundTrips: number
  /** Sum over the round trips: from the frontend's message to the backend's answer. */
  readonly inDatabase: number
  /** Sum over the waits of open transactions for the frontend. */
  readonly inTransactionOnClient: number
  /** Transactions ended (a `ReadyForQuery` back to idle after one in a transaction). */
  readonly transactions: number
}

const cstring = (buffer: Buffer, at: number) => {
  const end = buffer.indexOf(0, at)
  return { text: buffer.toString("utf8", at, end), next: end + 1 }
}

/** Listens on a free loopback port and forwards to `target` (a `postgres://` URL). */
export const statementLog = async (target: string): Promise<StatementLog> => {
  const upstream = new URL(target)
  let statements: Array<string> = []
  let roundTrips = 0
  const emptyTimings = { roundTrips: 0, inDatabase: 0, inTransactionOnClient: 0, transactions: 0 }
  let timings = { ...emptyTimings }
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const database = createConnection({ host: upstream.hostname, port: Number(upstream.port || 5432) })
    sockets.add(client).add(database)
    const prepared = new Map<string, string>()
    let pending = Buffer.alloc(0)
    let started = false
    // This connection's round trip under way (when it was sent), and its last answer (when, and in a transaction or not).
    let sentAt: number | undefined
    let readyAt = 0
    let inTransaction = false
    const roundTrip = () => {
      const now = performance.now()
      if (sentAt !== undefined) return
      if (inTransaction) timings.inTransactionOnClient += now - readyAt
      sentAt = now
      timings.roundTrips++
    }
    client.on("data", (chunk) => {
      database.write(chunk)
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        if (!started) {
          // The startup message: a length and no type byte.
          if (pending.length < 4) return
          const length = pending.readInt32BE(0)
          if (pending.length < length) return
          pending = pending.subarray(length)
          started = true
          continue
        }
        if (pending.length < 5) return
        const length = pending.readInt32BE(1)
        if (pending.length < 1 + length) return
        const type = String.fromCharCode(pending[0]!)
        const body = pending.subarray(5, 1 + length)
        if (type === "P") {
          const name = cstring(body, 0)
          prepared.set(name.text, cstring(body, name.next).text)
        } else if (type === "B") {
          const portal = cstring(body, 0)
          statements.push(prepared.get(cstring(body, portal.next).text) ?? "(unknown prepared statement)")
        } else if (type === "Q") {
          statements.push(cstring(body, 0).text)
          roundTrips++
          roundTrip()
        } else if (type === "S") {
          roundTrips++
          roundTrip()
        }
        pending = pending.subarray(1 + length)
      }
    })
    let answers = Buffer.alloc(0)
    database.on("data", (chunk) => {
      client.write(chunk)
      answers = answers.length === 0 ? chunk : Buffer.concat([answers, chunk])
      while (answers.length >= 5) {
        const length = answers.readInt32BE(1)
        if (answers.length < 1 + length) break
        // ReadyForQuery: its status byte is 'I' (idle), 'T' (in a transaction) or 'E' (a failed one).
        if (answers[0] === 0x5a && sentAt !== undefined) {
          readyAt = performance.now()
          timings.inDatabase += readyAt - sentAt
          const wasInTransaction = inTransaction
          inTransaction = answers[5] !== 0x49
          if (wasInTransaction && !inTransaction) timings.transactions++
          sentAt = undefined
        }
        answers = answers.subarray(1 + length)
      }
    })
    const end = () => {
      client.destroy()
      database.destroy()
      sockets.delete(client)
      sockets.delete(database)
    }
    client.on("close", end).on("error", end)
    database.on("close", end).on("error", end)
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  const address = server.address()
  const proxied = new URL(target)
  proxied.hostname = "127.0.0.1"
  proxied.port = String(typeof address === "object" && address !== null ? address.port : 0)
  return {
    url: proxied.toString(),
    take: () => {
      const taken = { statements, roundTrips }
      statements = []
      roundTrips = 0
      return taken
    },
    takeTimings: () => {
      const taken = timings
      timings = { ...emptyTimings }
      return taken
    },
    close: () =>
      new Promise<void>((closed) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => closed())
      })
  }
}

/**
 * Sends `request(i)` three times and prints, under `label`, what the third ran (its
 * prepared statements are warm): its round trips and each statement on one line.
 */
export const printStatementsOf = async (log: StatementLog, label: string, request: (i: number) => Promise<unknown>) => {
  for (let i = 0; i < 3; i++) {
    log.take()
    await request(i)
  }
  // Lets the last messages pass the proxy before they are read.
  await new Promise((done) => setTimeout(done, 50))
  const { roundTrips, statements } = log.take()
  console.log(`\n${label}: ${roundTrips} round trips, ${statements.length} statements`)
  for (const statement of statements) console.log(`  ${statement.replace(/\s+/g, " ").trim()}`)
}
