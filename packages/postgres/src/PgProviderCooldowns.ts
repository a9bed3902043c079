/**
 * `ProviderCooldowns` on PostgreSQL: the language models' cool-downs in one table
 * (`provider_cooldowns`, migration 0011) that every instance reads, so a model one
 * instance saw fail is skipped by all of them. The database's clock decides: a cool-down
 * is written as `now() + duration` and read as what is left of it, so the instances'
 * clocks need not agree. One prepared query reads every key of a chain.
 *
 * A database that fails or misses the deadline (default 200 ms) never blocks generation:
 * the process's own view answers, the database is left alone for a few seconds, and one
 * warning is logged per outage (`ProviderCooldowns.makeShared`).
 *
 * @since 0.1.0
 */
import { ProviderCooldowns, type SharedCooldownStore, type SharedCooldownsOptions } from "@coursekit/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { createHash } from "node:crypto"
import { PgSchema, tablesOf } from "./PgSchema.ts"

/** Options of {@link layer}: the deadline of each call and how long a failed database is left alone. */
export type Options = Omit<SharedCooldownsOptions, "storeName">

/** What is left of each cool-down, in milliseconds: decoded, never cast. */
const decodeLeft = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ key: Schema.String, left_ms: Schema.Number })))

/**
 * A key as stored: `text` holds no NUL (escaped, with the backslash), and a primary key
 * fits a B-tree entry (a key of more than 1,000 bytes keeps its start and a SHA-256 of the
 * whole). Any key is stored; none makes the table fail.
 */
const storedKey = (key: string): string => {
  const text = key.replaceAll("\\", "\\\\").replaceAll("\u0000", "\\0")
  return Buffer.byteLength(text) <= 1000 ? text : `${text.slice(0, 200)}…sha256:${createHash("sha256").update(text).digest("hex")}`
}

/** Far beyond any cool-down (the core caps them at an hour by default), and within PostgreSQL's `timestamptz`. */
const longestMillis = 100 * 365 * 24 * 60 * 60 * 1000

/** The table as a shared store, with the driver's failures; needs an `effect/sql` `SqlClient`. */
export const makeStore = (): Effect.Effect<SharedCooldownStore<SqlError.SqlError | Schema.SchemaError>, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = tablesOf(sql, yield* PgSchema)
    return {
      remaining: (keys) => {
        const byStored = new Map(keys.map((key) => [storedKey(key), key]))
        return sql`
          SELECT key, (extract(epoch FROM until - now()) * 1000)::float8 AS left_ms
          FROM ${t.provider_cooldowns} WHERE key = ANY(${[...byStored.keys()]}::text[]) AND until > now()
        `.pipe(
          Effect.flatMap(decodeLeft),
          Effect.map((rows): ReadonlyMap<string, number> => {
            const left = new Map<string, number>()
            for (const row of rows) {
              const key = byStored.get(row.key)
              if (key !== undefined && row.left_ms > 0) left.set(key, row.left_ms)
            }
            return left
          })
        )
      },
      // The later end wins. Rows whose cool-down is over are pruned on the way (the table
      // holds one row per model at most); the key being written is left to the upsert,
      // as one statement may not change a row twice.
      coolDown: (key, forMillis) => {
        const stored = storedKey(key)
        return sql`
          WITH pruned AS (DELETE FROM ${t.provider_cooldowns} WHERE until <= now() AND key <> ${stored})
          INSERT INTO ${t.provider_cooldowns} (key, until)
          VALUES (${stored}, now() + ${Math.min(forMillis, longestMillis)}::float8 * interval '1 millisecond')
          ON CONFLICT (key) DO UPDATE SET until = greatest(provider_cooldowns.until, excluded.until)
        `.pipe(Effect.asVoid)
      },
      clear: (key) => sql`DELETE FROM ${t.provider_cooldowns} WHERE key = ${storedKey(key)}`.pipe(Effect.asVoid)
    }
  })

/** The cool-downs on the `SqlClient` in context, with the process's own view as the fallback. */
export const make = (options: Options = {}): Effect.Effect<ProviderCooldowns["Service"], never, SqlClient.SqlClient> =>
  Effect.flatMap(makeStore(), (store) => ProviderCooldowns.makeShared(store, { ...options, storeName: "PostgreSQL database" }))

/** `ProviderCooldowns` over the `SqlClient` in context (`PgDatabase.layer`). */
export const layer = (options: Options = {}): Layer.Layer<ProviderCooldowns, never, SqlClient.SqlClient> =>
  Layer.effect(ProviderCooldowns, make(options))
