import { describe, expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { CoursekitApi } from "../src/CoursekitApi.ts"
import { parseIfMatch } from "../src/handlers/EditHeaders.ts"

const spec = OpenApi.fromApi(CoursekitApi) as any
const headerNames = (operation: any) =>
  (operation.parameters ?? []).filter((parameter: any) => parameter.in === "header").map((parameter: any) => parameter.name)

describe("the OpenAPI document of versioned records", () => {
  it("every write of a course, lesson or section documents If-Match, 412 and 428; PATCHes Coursekit-Autosave too", () => {
    const writes: Array<[string, string]> = [
      ["/courses/{id}", "patch"],
      ["/courses/{id}", "delete"],
      ["/courses/{id}/lessons/{lesson_id}", "patch"],
      ["/courses/{id}/lessons/{lesson_id}", "delete"],
      ["/courses/{id}/sections/{section_id}", "patch"],
      ["/courses/{id}/sections/{section_id}", "delete"],
      ["/courses/{id}/revisions/{revision_id}/restore", "post"],
      ["/courses/{id}/lessons/{lesson_id}/revisions/{revision_id}/restore", "post"]
    ]
    for (const [path, method] of writes) {
      const operation = spec.paths[path][method]
      expect(headerNames(operation), `${method} ${path}`).toContain("If-Match")
      expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(["412", "428"]))
      expect(headerNames(operation).includes("Coursekit-Autosave"), `${method} ${path}`).toBe(method === "patch" && !path.includes("sections"))
    }
  })

  it("the 412 body holds current_version and the record; answers of one record declare the ETag header", () => {
    const problem = spec.paths["/courses/{id}"].patch.responses["412"].content["application/problem+json"].schema
    const resolved = problem.$ref === undefined ? problem : spec.components.schemas[problem.$ref.split("/").at(-1)]
    expect(resolved.properties).toHaveProperty("current_version")
    expect(resolved.properties.current.$ref).toBe("#/components/schemas/Course")
    for (const [path, method, status] of [
      ["/courses/{id}", "get", "200"],
      ["/courses", "post", "201"],
      ["/courses/{id}", "patch", "200"],
      ["/courses/{id}/lessons", "post", "201"],
      ["/courses/{id}/lessons/{lesson_id}", "patch", "200"],
      ["/courses/{id}/sections/{section_id}", "patch", "200"]
    ] as const) {
      expect(spec.paths[path][method].responses[status].headers, `${method} ${path}`).toHaveProperty("ETag")
    }
    expect(Object.keys(spec.paths["/courses/{id}/revisions"].get.responses)).toContain("200")
    expect(spec.paths["/courses/{id}/lessons/{lesson_id}/revisions/{revision_id}"].get.responses["200"].content["application/json"].schema.$ref)
      .toBe("#/components/schemas/LessonRevision")
  })

  it("If-Match: * is any version; strong tags name versions; weak and foreign tags name none; anything else is malformed", () => {
    expect(parseIfMatch("*")).toBe("any")
    expect(parseIfMatch(" \"3\" , W/\"4\", \"abc\",\"12\" ")).toEqual([3, 12])
    expect(parseIfMatch("W/\"3\"")).toEqual([])
    expect(parseIfMatch("\"03\"")).toEqual([])
    for (const malformed of ["", "3", "\"3", "W/3", "*, \"3\"", "\"a\"b\"", "\"3\" \"4\"", "\"\u0000\""]) {
      expect(parseIfMatch(malformed), JSON.stringify(malformed)).toBeUndefined()
    }
  })
})
