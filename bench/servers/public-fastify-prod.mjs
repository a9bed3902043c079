/**
 * Comparison in the public-course benchmark: Fastify configured for production
 * (`fastify-production.mjs`: pino, one log line per request, the statement deadline, rows
 * checked) with a response schema, doing the same work as the bare baseline
 * (`public-course-common.mjs`). The ETag is a hash of the answer's bytes, so the handler
 * serializes with the route's schema (`reply.serialize`) before hashing.
 */
import { courseRowSchema, lessonRowSchema, publicCourse, publicCourseSchema, viewerOf } from "./public-course-common.mjs"
import { productionFastify, productionPool, rowChecker } from "./fastify-production.mjs"

const pool = productionPool()
const app = productionFastify()
const checkCourse = rowChecker(courseRowSchema)
const checkLessons = rowChecker(lessonRowSchema)

app.get("/public/courses/:slug", { schema: { response: { 200: publicCourseSchema } } }, async (request, reply) => {
  let viewer
  try {
    viewer = await viewerOf(request.headers.authorization)
  } catch {
    return reply.code(401).header("www-authenticate", "Bearer").send("")
  }
  const serialize = (course) => reply.serialize(course)
  const { status, headers, body } = await publicCourse(pool, request.params.slug, viewer, request.headers["if-none-match"], { checkCourse, checkLessons, serialize })
  return reply.code(status).headers(headers).send(body)
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
