/**
 * Comparison (c') of the list benchmark: Fastify configured for production
 * (`fastify-production.mjs`: pino, one log line per request, the statement deadline, rows
 * checked) with a response schema, doing the same work as the bare baseline
 * (`list-common.mjs`).
 */
import { listItemsSchema, listPage, listRowSchema } from "./list-common.mjs"
import { productionFastify, productionPool, rowChecker } from "./fastify-production.mjs"

const pool = productionPool()
const app = productionFastify()
const checkRows = rowChecker(listRowSchema)

app.get("/courses", { schema: { response: { 200: listItemsSchema } } }, async (request, reply) => {
  const serialize = (items) => reply.serialize(items)
  const { status, headers, body } = await listPage(pool, request.url, request.headers["if-none-match"], { checkRows, serialize })
  return reply.code(status).headers(headers).send(body)
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
