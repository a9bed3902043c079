/**
 * Fastify as teams deploy it in production (issue #36), shared by the `fastify-prod`
 * peers of the list and public-course benchmarks:
 *   - its pino logger on, one line per request (Fastify's own `request completed`, with the
 *     request id, the response's status and time, here also the method and URL) written
 *     to standard output, which the benchmark points at a file as it does Coursekit's
 *     request log (the `incoming request` line is off: Coursekit writes one per request);
 *   - a statement deadline equal to Coursekit's default (`DATABASE_TIMEOUT_MS`, 5 s): on the
 *     client (`query_timeout`, and for taking a connection) and on the server
 *     (`statement_timeout`), as Coursekit bounds both;
 *   - each row read checked against its JSON schema with Ajv (compiled once, as Fastify
 *     compiles schemas), as Coursekit decodes every row it reads;
 *   - each route's 200 answer serialized from a response schema (fast-json-stringify), in
 *     the route files.
 */
import Ajv from "ajv"
import Fastify, { LogController } from "fastify"
import pg from "pg"

/** Coursekit's default deadline of every database call. */
const deadlineMillis = 5000

/** A `pg` pool with Coursekit's deadline on every statement, client side and server side. */
export const productionPool = () =>
  new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.POOL_SIZE ?? 10),
    connectionTimeoutMillis: deadlineMillis,
    query_timeout: deadlineMillis,
    statement_timeout: deadlineMillis
  })

/** Fastify's request log with its completion line only, naming the request too. */
class OneLinePerRequest extends LogController {
  incomingRequest() {}

  requestCompleted(error, request, reply) {
    const line = { method: request.method, url: request.url, res: reply, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...line, err: error }, "request errored")
    else reply.log.info(line, "request completed")
  }
}

/** Fastify with pino on and one log line per request; `options` are Fastify's own besides. */
export const productionFastify = (options = {}) => Fastify({ ...options, logger: { level: "info" }, logController: new OneLinePerRequest() })

const ajv = new Ajv({ allErrors: false })
// A row's instants are `Date`s (`pg` parses timestamptz), which JSON Schema has no type for.
ajv.addKeyword({ keyword: "instanceofDate", schemaType: "boolean", validate: (expected, data) => !expected || data instanceof Date, errors: false })

/**
 * A checker of rows against `schema`: throws when a row does not match, so the request
 * fails as Coursekit's does on a row it cannot decode.
 */
export const rowChecker = (schema) => {
  const valid = ajv.compile(schema)
  return (rows) => {
    for (const row of rows) {
      if (!valid(row)) throw new Error(`row does not match its schema: ${ajv.errorsText(valid.errors)}`)
    }
    return rows
  }
}
