import { PersistenceError } from "@coursekit/core"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { SqlError } from "effect/sql"
import { failStore, isTransient, UnexpectedStoreFailure } from "../src/PgErrors.ts"

const unknown = (code: string | undefined) =>
  new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: code === undefined ? new Error("socket hang up") : { code }, message: "x" }) })
const classified = (reason: SqlError.SqlError["reason"]) => new SqlError.SqlError({ reason })

describe("PgErrors", () => {
  it("a retry may help: connection, deadlock, serialization, time-outs, refused logins, resources, shutdowns and connections refused", () => {
    const transient = [
      classified(new SqlError.ConnectionError({ cause: { code: "08006" } })),
      classified(new SqlError.DeadlockError({ cause: { code: "40P01" } })),
      classified(new SqlError.SerializationError({ cause: { code: "40001" } })),
      classified(new SqlError.LockTimeoutError({ cause: { code: "55P03" } })),
      classified(new SqlError.StatementTimeoutError({ cause: { code: "57014" } })),
      classified(new SqlError.AuthenticationError({ cause: { code: "28P01" } })),
      unknown("53300"), // too many connections
      unknown("57P01"), // admin shutdown
      unknown("57P03"), // cannot connect now
      unknown("58030"), // I/O error
      unknown("55000"), // database not accepting connections
      unknown("3D000"), // database gone
      unknown(undefined) // the socket failed
    ]
    expect(transient.map(isTransient)).toEqual(transient.map(() => true))
  })

  it("no retry helps: constraints, syntax, privileges, data exceptions and internal errors", () => {
    const lasting = [
      classified(new SqlError.ConstraintError({ cause: { code: "23514" } })),
      classified(new SqlError.UniqueViolation({ cause: { code: "23505" }, constraint: "x" })),
      classified(new SqlError.SqlSyntaxError({ cause: { code: "42703" } })),
      classified(new SqlError.AuthorizationError({ cause: { code: "42501" } })),
      unknown("22003"), // numeric value out of range
      unknown("XX000"), // internal error
      unknown("P0001") // a raised exception
    ]
    expect(lasting.map(isTransient)).toEqual(lasting.map(() => false))
  })

  it.effect("failStore: a PersistenceError for a transient failure, a defect naming the operation for anything else, a decoding failure included", () =>
    Effect.gen(function*() {
      const transient = yield* Effect.exit(failStore("list courses", unknown("57P01")))
      expect(Exit.isFailure(transient) && Cause.squash(transient.cause)).toBeInstanceOf(PersistenceError)
      const constraint = yield* Effect.exit(failStore("insert course", classified(new SqlError.ConstraintError({ cause: { code: "23514" } }))))
      expect(Exit.isFailure(constraint) && Cause.hasDies(constraint.cause)).toBe(true)
      const defect = Exit.isFailure(constraint) ? Cause.squash(constraint.cause) : undefined
      expect(defect).toBeInstanceOf(UnexpectedStoreFailure)
      expect((defect as UnexpectedStoreFailure).message).toBe("The database answered insert course in a way the code does not expect.")
      const decoding = yield* Schema.decodeUnknownEffect(Schema.Literals(["draft", "published"]))("archived").pipe(
        Effect.catch((error) => failStore("find course", error)),
        Effect.exit
      )
      expect(Exit.isFailure(decoding) && Cause.hasDies(decoding.cause)).toBe(true)
    }))
})
