/**
 * The OpenAPI document the server publishes at /openapi.json, checked by a maintained
 * OpenAPI validator (@seriousme/openapi-schema-validator, the official 3.1 JSON Schema),
 * with every $ref resolving and every endpoint of the contract in it.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { Validator } from "@seriousme/openapi-schema-validator"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CoursekitHttp } from "../src/index.ts"

const documentUnder = (prefix: string) =>
  Effect.promise(async () => {
    const { handler, dispose } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()), { prefix })
    const response = await handler(new Request(`http://host${prefix}/openapi.json`))
    const document = await response.json() as Record<string, any>
    const docs = await (await handler(new Request(`http://host${prefix}/docs`))).text()
    await dispose()
    return { status: response.status, document, docs }
  })

const publishedDocument = documentUnder("")

describe("the OpenAPI document", () => {
  it.effect("states the one spelling of every numeric path and query parameter (the document renders them as strings)", () =>
    Effect.gen(function*() {
      const { document } = yield* publishedDocument
      const numeric = new Set(["id", "lesson_id", "revision_id", "cursor", "limit"])
      // These cursors are opaque text (a search position, a learner's activity) or a user id, not an id.
      const textCursors = new Set(["/courses/search", "/me/courses", "/admin/courses/{id}/learners"])
      let seen = 0
      for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const operation of Object.values(operations)) {
          for (const parameter of operation.parameters ?? []) {
            // The search's cursor is opaque text, not an id.
            if (!numeric.has(parameter.name) || (textCursors.has(path) && parameter.name === "cursor")) continue
            const schema = parameter.schema.anyOf?.[0] ?? parameter.schema
            assert.strictEqual(schema.type, "string")
            assert.match(schema.description, /: 1 to \d+, in decimal digits without sign, leading zeros or exponent/, parameter.name)
            seen++
          }
        }
      }
      assert.isAtLeast(seen, 15)
    }))

  it.effect("is valid OpenAPI 3.1 according to the validator, and every $ref resolves", () =>
    Effect.gen(function*() {
      const { status, document } = yield* publishedDocument
      assert.strictEqual(status, 200)
      const validator = new Validator()
      const result = yield* Effect.promise(() => validator.validate(structuredClone(document)))
      assert.deepStrictEqual(result.errors ?? [], [])
      assert.isTrue(result.valid)
      assert.strictEqual(validator.version, "3.1")
      // Dereferencing fails on a dangling $ref.
      assert.doesNotThrow(() => validator.resolveRefs())

      // The validator does see a broken document: no info, a response without description.
      const broken = structuredClone(document)
      delete broken.info
      delete broken.paths["/courses"].post.responses["201"].description
      const refused = yield* Effect.promise(() => new Validator().validate(broken))
      assert.isFalse(refused.valid)
    }))

  it.effect("under a mount prefix it names the prefix as its server (so /docs' requests reach the mounted API) and stays valid", () =>
    Effect.gen(function*() {
      const root = yield* publishedDocument
      const mounted = yield* documentUnder("/api/coursekit")
      assert.isUndefined(root.document.servers)
      assert.deepStrictEqual(mounted.document.servers, [{ url: "/api/coursekit" }])
      // The paths stay relative to the server.
      assert.deepStrictEqual(Object.keys(mounted.document.paths), Object.keys(root.document.paths))
      assert.include(mounted.docs, "/api/coursekit")
      assert.notInclude(root.docs, "/api/coursekit")
      const result = yield* Effect.promise(() => new Validator().validate(structuredClone(mounted.document)))
      assert.deepStrictEqual(result.errors ?? [], [])
    }))

  it.effect("holds every endpoint of the contract, each with an operationId and its problems", () =>
    Effect.gen(function*() {
      const { document } = yield* publishedDocument
      const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation }))
      )
      const ids = operations.map(({ operation }) => operation.operationId as string)
      assert.strictEqual(new Set(ids).size, ids.length, "operationIds are unique")
      for (
        const expected of [
          "courses.create",
          "courses.list",
          "courseUploads.uploadUrl",
          "courseUploads.finalizeUpload",
          "media.uploadUrl",
          "media.delete",
          "lessons.create",
          "public.course",
          "purchases.grant",
          "ai.generate"
        ]
      ) assert.include(ids, expected)
      for (const { path, method, operation } of operations) {
        const problems = Object.entries(operation.responses as Record<string, any>).filter(([code]) => Number(code) >= 400)
        assert.isAbove(problems.length, 0, `${method} ${path} documents its errors`)
        for (const [code, response] of problems) {
          assert.property(response.content ?? {}, "application/problem+json", `${method} ${path} ${code} is a problem`)
        }
      }
    }))

  it.effect("declares 410 where a multipart upload past its expiry is refused: part URLs, status and complete", () =>
    Effect.gen(function*() {
      const { document } = yield* publishedDocument
      const paths = document.paths as Record<string, Record<string, any>>
      for (
        const operation of [
          paths["/admin/media/multipart/{upload_id}/parts"]!.post,
          paths["/admin/media/multipart/{upload_id}"]!.get,
          paths["/admin/media/multipart/{upload_id}/complete"]!.post
        ]
      ) assert.property(operation.responses, "410", operation.operationId)
      assert.notProperty(paths["/admin/media/multipart/{upload_id}"]!.delete.responses, "410")
    }))

  it.effect("documents protected media: visibility, signed URLs with their expiry, and DELETE /admin/media", () =>
    Effect.gen(function*() {
      const { document } = yield* publishedDocument
      const schemas = document.components.schemas as Record<string, any>
      const resolve = (schema: any): any => schema.$ref === undefined ? schema : resolve(schemas[schema.$ref.split("/").pop()])
      const property = (name: string, field: string) => resolve(schemas[name].properties[field])
      assert.deepStrictEqual(property("MediaUploadUrlRequest", "visibility").enum, ["public", "private"])
      assert.notInclude(schemas.MediaUploadUrlRequest.required, "visibility")
      for (const field of ["visibility", "url", "url_expires_at"]) assert.include(schemas.MediaFile.required, field)
      for (const name of ["Lesson", "PublicLesson"]) assert.include(schemas[name].required, "video_url_expires_at", name)
      // The list says what uses each file, with the fields the 409 names.
      const listed = document.paths["/admin/media"].get.responses["200"].content["application/json"].schema
      const item = resolve(listed.items)
      assert.include(item.required, "used_by")
      const usedBy = resolve(item.properties.used_by)
      assert.deepStrictEqual(usedBy.required, ["lessons", "thumbnail_of"])
      assert.deepStrictEqual(resolve(usedBy.properties.lessons.items).required, ["course_id", "lesson_id"])
      assert.match(usedBy.description, /refused \(409\)/)
      assert.include(document.paths["/admin/media"].get.description, "used_by")
      const remove = document.paths["/admin/media"].delete
      assert.strictEqual(remove.operationId, "media.delete")
      assert.deepStrictEqual(remove.parameters.map((parameter: any) => [parameter.name, parameter.in, parameter.required]), [["file_key", "query", true]])
      assert.includeMembers(Object.keys(remove.responses), ["204", "404", "409"])
      const conflict = resolve(remove.responses["409"].content["application/problem+json"].schema)
      assert.includeMembers(Object.keys(conflict.properties ?? {}), ["lessons", "thumbnail_of"])
      for (const path of ["/courses/{id}/lessons", "/courses/{id}/lessons/{lesson_id}"]) {
        const write = document.paths[path].post ?? document.paths[path].patch
        assert.property(write.responses, "422", path)
      }
    }))

  it.effect("documents publishing: status and publish_at, the admin-only filter, sections and section_id", () =>
    Effect.gen(function*() {
      const { document } = yield* publishedDocument
      const schemas = document.components.schemas as Record<string, any>
      const paths = document.paths as Record<string, Record<string, any>>
      const resolve = (schema: any): any => schema.$ref === undefined ? schema : resolve(schemas[schema.$ref.split("/").pop()])
      for (const name of ["Course", "Lesson"]) {
        assert.includeMembers(schemas[name].required, ["status", "publish_at"], name)
        assert.deepStrictEqual(resolve(schemas[name].properties.status).enum, ["draft", "published"], name)
      }
      for (const name of ["CourseCreate", "LessonCreate"]) {
        assert.includeMembers(Object.keys(schemas[name].properties), ["status", "publish_at"], name)
        assert.notInclude(schemas[name].required ?? [], "status", name)
      }
      // On list items they are admin-only: present for admins, absent for everyone else.
      assert.includeMembers(Object.keys(schemas.CourseListItem.properties), ["status", "publish_at"])
      assert.notInclude(schemas.CourseListItem.required, "status")
      const status = paths["/courses"]!.get.parameters.find((parameter: any) => parameter.name === "status")
      assert.deepStrictEqual(resolve(status.schema).anyOf.flatMap((branch: any) => branch.enum), ["draft", "published", "scheduled"])
      assert.includeMembers(Object.keys(paths["/courses"]!.get.responses), ["401", "403"])
      assert.include(schemas.Lesson.required, "section_id")
      assert.includeMembers(Object.keys(schemas.PublicCourse.properties), ["lessons", "sections"])
      assert.deepStrictEqual(Object.keys(schemas.PublicSection.properties).sort(), ["id", "lessons", "position", "title"])
      assert.deepStrictEqual(Object.keys(paths["/courses/{id}/sections"]!).sort(), ["get", "post"])
      assert.deepStrictEqual(Object.keys(paths["/courses/{id}/sections/{section_id}"]!).sort(), ["delete", "patch"])
      const remove = paths["/courses/{id}/sections/{section_id}"]!.delete
      assert.includeMembers(Object.keys(remove.responses), ["204", "404", "409"])
      assert.deepStrictEqual(remove.parameters.filter((parameter: any) => parameter.in === "query").map((parameter: any) => parameter.name), ["lessons"])
    }))
})
