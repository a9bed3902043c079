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

/** Options of {@link layer}: the deadline of each call and how long a failed database is left alone. */
export type Options = Omit<SharedCooldownsOptions, "storeName">

/** What is left of each cool-down, in milliseconds: decoded, never cast. */
const decodeLeft = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ key: Schema.String, left_ms: Schema.Number })))

/** The table as a shared store, with the driver's failures; needs an `effect/sql` `SqlClient`. */
export const makeStore = (): Effect.Effect<SharedCooldownStore<SqlError.SqlError | Schema.SchemaError>, never, SqlClient.SqlClient> =>
  Effect.map(Effect.service(SqlClient.SqlClient), (sql) => ({
    remaining: (keys) =>
      sql`
        SELECT key, (extract(epoch FROM until - now()) * 1000)::float8 AS left_ms
        FROM provider_cooldowns WHERE key = ANY(${keys}::text[]) AND until > now()
      `.pipe(
        Effect.flatMap(decodeLeft),
        Effect.map((rows): ReadonlyMap<string, number> => new Map(rows.map((row) => [row.key, row.left_ms])))
      ),
    // The later end wins. Rows whose cool-down is over are pruned on the way (the table
    // holds one row per model at most); the key being written is left to the upsert,
    // as one statement may not change a row twice.
    coolDown: (key, forMillis) =>
      sql`
        WITH pruned AS (DELETE FROM provider_cooldowns WHERE until <= now() AND key <> ${key})
        INSERT INTO provider_cooldowns (key, until) VALUES (${key}, now() + ${forMillis}::float8 * interval '1 millisecond')
        ON CONFLICT (key) DO UPDATE SET until = greatest(provider_cooldowns.until, excluded.until)
      `.pipe(Effect.asVoid),
    clear: (key) => sql`DELETE FROM provider_cooldowns WHERE key = ${key}`.pipe(Effect.asVoid)
  }))

/** The cool-downs on the `SqlClient` in context, with the process's own view as the fallback. */
export const make = (options: Options = {}): Effect.Effect<ProviderCooldowns["Service"], never, SqlClient.SqlClient> =>
  Effect.flatMap(makeStore(), (store) => ProviderCooldowns.makeShared(store, { ...options, storeName: "PostgreSQL database" }))

/** `ProviderCooldowns` over the `SqlClient` in context (`PgDatabase.layer`). */
export const layer = (options: Options = {}): Layer.Layer<ProviderCooldowns, never, SqlClient.SqlClient> =>
  Layer.effect(ProviderCooldowns, make(options))
