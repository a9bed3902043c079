/**
 * Every text input of every endpoint refuses what the database cannot store — NUL, and in
 * bodies an unpaired surrogate — with a 400 problem that names the input, before any I/O.
 * The endpoints and their inputs are read from the server's own OpenAPI document, so a
 * new endpoint or field is covered as soon as it exists (and fails here until it has an
 * example body), the fields of objects in arrays too. Ids have one spelling: anything but
 * the canonical decimal is a 400.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, layerTestServer } from "./TestServer.ts"

/** A valid body per request schema, so that only the field under test is wrong. */
const validBodies: Record<string, Record<string, unknown>> = {
  CourseCreate: { title: "A course", content_html: "<p>Body</p>" },
  CourseUpdate: { title: "A course", content_html: "<p>Body</p>" },
  UploadUrlRequest: { file_name: "cover.png", content_type: "image/png" },
  MediaUploadUrlRequest: { filename: "clip.mp4", type: "video/mp4" },
  FinalizeUploadRequest: { file_key: "media/x.mp4" },
  LessonCreate: { title: "A lesson", content_html: "<p>Body</p>", video_key: "media/x.mp4" },
  LessonUpdate: { title: "A lesson", content_html: "<p>Body</p>", video_key: "media/x.mp4" },
  GenerateRequest: { prompt: "A lesson on soufflés" },
  MultipartCreateRequest: { filename: "lecture.mp4", type: "video/mp4", size_bytes: 10 },
  PartUrlsRequest: { part_numbers: [1] },
  MultipartCompleteRequest: { parts: [{ part_number: 1, etag: "\"0\"" }] },
  SectionCreate: { title: "Week 1" },
  SectionUpdate: { title: "Week 1" },
  ProgressUpdate: { completed: true, position_seconds: 1 },
  SessionSignIn: { token: "not-an-admin-token" }
}

/** A valid value per path or query parameter name. */
const validParams: Record<string, string> = {
  id: "1",
  lesson_id: "1",
  user_id: "user-1",
  slug: "a-course",
  cursor: "1",
  limit: "10",
  q: "course",
  file_key: "media/x.mp4",
  upload_id: "0b9d4c1e-5f2a-4c3b-9d8e-7f6a5b4c3d2e",
  section_id: "1",
  status: "draft",
  lessons: "detach",
  as: "visitor",
  kind: "video",
  visibility: "private"
}

interface Operation {
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: "path" | "query" }>
  readonly body: string | undefined
  /** Whether it takes the admin token (the public course takes viewer tokens only). */
  readonly admin: boolean
}

const operationsOf = (document: any): Array<Operation> =>
  Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []).filter((parameter: any) => parameter.in === "path" || parameter.in === "query"),
      body: operation.requestBody?.content?.["application/json"]?.schema?.$ref?.split("/").pop(),
      admin: ((operation.security ?? []).some((requirement: Record<string, unknown>) => Object.keys(requirement).length > 0) &&
        !path.startsWith("/public/")) ||
        // Catalogue reads: anyone may read, and admins may use every parameter (`status` is theirs alone).
        (method === "get" && /^\/courses(\/\{id\}|\/search)?$/.test(path))
    }))
  )

/**
 * Where the body of `schemaName` accepts text, as paths into it: its own fields, and the
 * fields of the objects in its arrays (`["parts", 0, "etag"]`: the first element's).
 */
const textFields = (document: any, schemaName: string): Array<ReadonlyArray<string | number>> => {
  const resolved = (schema: any): any => schema.$ref === undefined ? schema : resolved(document.components.schemas[schema.$ref.split("/").pop()])
  const within = (schema: any, path: ReadonlyArray<string | number>): Array<ReadonlyArray<string | number>> => {
    const object = resolved(schema)
    if (object.type === "array") return within(object.items, [...path, 0])
    if (object.type === "string" || (object.anyOf ?? []).some((branch: any) => resolved(branch).type === "string")) return [path]
    if (object.properties === undefined) return []
    return Object.entries(object.properties as Record<string, any>).flatMap(([name, field]) => within(field, [...path, name]))
  }
  return within(document.components.schemas[schemaName], [])
}

/** `body` with `value` at `path` (which it holds already: the valid body has every array's first element). */
const withValueAt = (body: Record<string, unknown>, path: ReadonlyArray<string | number>, value: string): Record<string, unknown> => {
  const copy = structuredClone(body)
  let target: any = copy
  for (const step of path.slice(0, -1)) target = target[step]
  target[path.at(-1)!] = value
  return copy
}

const urlOf = (operation: Operation, values: Record<string, string>) => {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!)
  const query = operation.parameters.filter((parameter) => parameter.in === "query")
    .map((parameter) => `${parameter.name}=${values[parameter.name]}`).join("&")
  return query === "" ? path : `${path}?${query}`
}

const defaults = (operation: Operation) =>
  Object.fromEntries(operation.parameters.map((parameter) => [parameter.name, encodeURIComponent(validParams[parameter.name]!)]))

describe("text the database cannot store, in every input of every endpoint", () => {
  layer(layerTestServer(), { timeout: 60_000 })((it) => {
    it.effect("is a 400 problem naming the input: NUL in each path and query parameter and body field, an unpaired surrogate in each body field", () =>
      Effect.gen(function*() {
        const document = (yield* call("/openapi.json")).body
        const operations = operationsOf(document)
        assert.isAtLeast(operations.length, 20)
        let checked = 0
        const expect400 = (reply: { status: number; body: any }, input: string, what: string) => {
          assert.strictEqual(reply.status, 400, `${what}: ${JSON.stringify(reply.body)}`)
          assert.strictEqual(reply.body.title, "Bad Request")
          const paths = (reply.body.errors ?? []).map((error: { path: string }) => error.path)
          assert.include(paths, input, `${what}: ${JSON.stringify(reply.body)}`)
          checked++
        }
        for (const operation of operations) {
          const body = operation.body === undefined ? undefined : validBodies[operation.body]
          assert.isTrue(operation.body === undefined || body !== undefined, `add a valid ${operation.body} body to this test`)
          for (const parameter of operation.parameters) {
            const values = { ...defaults(operation), [parameter.name]: "a%00b" }
            const reply = yield* call(urlOf(operation, values), {
              method: operation.method,
              admin: operation.admin,
              ...(body === undefined ? {} : { json: body })
            })
            expect400(reply, `${parameter.in}.${parameter.name}`, `${operation.method} ${operation.path} ${parameter.name}`)
          }
          if (operation.body === undefined) continue
          for (const field of textFields(document, operation.body)) {
            for (const bad of ["a\u0000b", "a\ud800b"]) {
              const reply = yield* call(urlOf(operation, defaults(operation)), {
                method: operation.method,
                admin: operation.admin,
                json: withValueAt(body!, field, bad)
              })
              expect400(reply, ["body", ...field].join("."), `${operation.method} ${operation.path} ${field.join(".")} ${JSON.stringify(bad)}`)
            }
          }
        }
        // Every parameterised path and every body schema took part.
        assert.isAtLeast(checked, 40)
      }), 60_000)

    it.effect("an id written other than in canonical decimal is a 400 and never names another course, also for DELETE", () =>
      Effect.gen(function*() {
        const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "Only one", content_html: "<p>x</p>" } })
        const id = created.body.id as number
        for (const spelling of [`0${id}`, `+${id}`, `${id}e0`, `${id}.0`, ` ${id}`, `0x${id.toString(16)}`, "99999999999"]) {
          for (const method of ["GET", "DELETE"]) {
            const reply = yield* call(`/courses/${encodeURIComponent(spelling)}`, { method, admin: true })
            assert.strictEqual(reply.status, 400, `${method} /courses/${spelling}: ${reply.text}`)
            assert.deepStrictEqual(reply.body.errors.map((error: { path: string }) => error.path), ["path.id"])
          }
        }
        for (const query of [`cursor=0${id}`, "cursor=1e0", "limit=1e1", "limit=010"]) {
          const reply = yield* call(`/courses?${query}`)
          assert.strictEqual(reply.status, 400, `${query}: ${reply.text}`)
        }
        // Still there, under its one URL.
        assert.strictEqual((yield* call(`/courses/${id}`)).status, 200)
      }))
  })
})
