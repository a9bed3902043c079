/**
 * CPU per request, layer by layer, in this process (`public-course-layers.ts`,
 * `catalogue-list-layers.ts`): each layer serves the same requests, 20 in flight, after a
 * warm-up; a row less the one above it is what that layer adds. Only this process's CPU
 * is counted (`process.cpuUsage`), so PostgreSQL's own time is not in it. Rounds alternate
 * the order; the medians are printed.
 */
import { PgDatabase } from "@coursekit/postgres"
import { DefaultServices, ServerConfig } from "@coursekit/server"
import { ConfigProvider, Effect, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const requests = Number(process.env.BENCH_LAYER_REQUESTS ?? 15000)
const inFlight = 20

/**
 * One layer: its name, one request through it (`index` picks the request) and, for
 * requests that write, what puts the data back as it was (before the warm-up and before
 * the measured requests, which begin at index 0 again).
 */
export type MeasuredLayer = readonly [string, (index: number) => Promise<unknown>, reset?: () => Promise<void>]

/** CPU µs of this process per call of `one`, `requests` calls with {@link inFlight} at a time, after a warm-up. */
const cpuPerCall = async (one: (index: number) => Promise<unknown>, reset?: () => Promise<void>) => {
  await reset?.()
  for (let index = 0; index < 500; index++) await one(index)
  await reset?.()
  const before = process.cpuUsage()
  let next = 0
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < requests) await one(next++)
  }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / requests
}

/** Measures `layers` for `rounds` rounds and prints each round and the medians. */
export const measureLayerCosts = async (layers: ReadonlyArray<MeasuredLayer>, rounds: number) => {
  const samples = new Map<string, Array<number>>(layers.map(([name]) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [name, one, reset] of round % 2 === 0 ? layers : [...layers].reverse()) {
      const cpu = await cpuPerCall(one, reset)
      samples.get(name)!.push(cpu)
      console.log(`round ${round + 1} ${name.padEnd(15)} ${cpu.toFixed(0).padStart(5)} µs CPU per request`)
    }
  }
  const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  console.log("\nlayer            µs CPU/request (median)  added by the layer")
  let below = 0
  for (const [name] of layers) {
    const value = median(samples.get(name)!)
    console.log(`${name.padEnd(16)} ${value.toFixed(0).padStart(23)} ${(value - below).toFixed(0).padStart(19)}`)
    below = value
  }
}

/**
 * The standalone server's use cases on `databaseUrl`, wired as `DefaultServices` wires
 * them (pool of 10, files under a throw-away data directory that `remove` deletes).
 */
export const coreServicesOn = async (databaseUrl: string) => {
  const dataDir = mkdtempSync(join(tmpdir(), "coursekit-bench-layers-"))
  const settings = await Effect.runPromise(ServerConfig.settings.parse(ConfigProvider.fromEnv({
    env: { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "10", DATA_DIR: dataDir, CDN_URL: "http://localhost/files", LOG_LEVEL: "Warn" }
  })))
  return {
    services: DefaultServices.coreLayers(settings, () => "http://127.0.0.1").services,
    remove: () => rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The PostgreSQL database on `databaseUrl` with a pool of 10, for repositories measured on their own. */
export const databaseOn = (databaseUrl: string) => PgDatabase.layer({ url: Redacted.make(databaseUrl), maxConnections: 10 })
