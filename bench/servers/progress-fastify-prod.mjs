/**
 * Comparison in the learner-progress benchmark: Fastify configured for production
 * (`fastify-production.mjs`: pino with one log line per request, Coursekit's statement
 * deadline, rows checked with Ajv), answering `PUT /me/lessons/{lesson_id}/progress` as
 * the bare baseline does (`progress-bare.mjs`: the same viewer check, the same statements
 * of `progress-common.mjs`, the same answers), with what Fastify itself brings: the body
 * and the lesson id checked by the route's JSON schemas (Ajv, no type coercion, as
 * Coursekit's `ProgressUpdate` coerces nothing), the 200 answer written from a response
 * schema (fast-json-stringify).
 */
import { productionFastify, productionPool, rowChecker } from "./fastify-production.mjs"
import { anonymous, invalidToken, maxPositionSeconds, problem, progressSchema, recordProgress, writeRowSchema } from "./progress-common.mjs"
import { viewerOf } from "./public-course-common.mjs"

const pool = productionPool()
const app = productionFastify({ ajv: { customOptions: { coerceTypes: false } } })
const checkRows = rowChecker(writeRowSchema)
const maxId = 2_147_483_647

app.get("/health/ready", async () => {
  await pool.query("SELECT 1")
  return { status: "ready" }
})

app.put("/me/lessons/:lesson_id/progress", {
  schema: {
    params: { type: "object", required: ["lesson_id"], properties: { lesson_id: { type: "string", pattern: "^[1-9][0-9]{0,9}$" } } },
    body: {
      type: "object",
      properties: { completed: { type: "boolean" }, position_seconds: { type: "number", minimum: 0, maximum: maxPositionSeconds } },
      anyOf: [{ required: ["completed"] }, { required: ["position_seconds"] }]
    },
    response: { 200: progressSchema }
  }
}, async (request, reply) => {
  const send = ({ status, headers, body }) => reply.code(status).headers(headers).send(body)
  let viewer
  try {
    viewer = await viewerOf(request.headers.authorization)
  } catch {
    return send(invalidToken)
  }
  if (viewer === null) return send(anonymous)
  const lessonId = Number(request.params.lesson_id)
  if (lessonId > maxId) return send(problem(400, "Bad Request", "Invalid request."))
  const { completed, position_seconds: position } = request.body
  const serialize = (progress) => reply.serialize(progress)
  return send(await recordProgress(pool, viewer, lessonId, { completed: completed ?? null, position: position ?? null }, { checkRows, serialize }))
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
