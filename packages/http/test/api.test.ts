import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import * as Api from "../src/api.ts"

describe("@coursekit/http/api", () => {
  it("exports exactly the contract", () => {
    expect(Object.keys(Api).sort()).toEqual([
      "AdminAuth",
      "AiApi",
      "ApiProblems",
      "BadGateway",
      "CatalogueAuth",
      "Conflict",
      "ContentTooLarge",
      "CourseUploadsApi",
      "CoursekitApi",
      "CoursesApi",
      "CurrentAudience",
      "CurrentViewer",
      "DependencyCheck",
      "Forbidden",
      "GenerationStreamProblem",
      "Gone",
      "InUse",
      "InternalProblem",
      "LessonsApi",
      "MediaApi",
      "MultipartApi",
      "NotFound",
      "NotReady",
      "PartConflict",
      "ProblemIssue",
      "PublicApi",
      "PurchasesApi",
      "ReadinessReport",
      "SectionsApi",
      "ServiceUnavailable",
      "SystemApi",
      "Unauthorized",
      "UnauthorizedResponse",
      "UnprocessableContent",
      "UnsupportedMediaType",
      "ValidationProblem",
      "ViewerAuth",
      "Welcome",
      "acceptsEventStream",
      "bearerChallenge",
      "describeGenerationEventStream",
      "generationEventStreamType",
      "generationEvents",
      "problemBody",
      "problemDeclaration",
      "problemTitles"
    ])
  })

  it("its modules import no server code", () => {
    for (const file of ["AdminAuth.ts", "ApiProblems.ts", "CatalogueAuth.ts", "CoursekitApi.ts", "DomainProblems.ts", "GenerationEventStream.ts", "PathParams.ts", "Problems.ts", "ViewerAuth.ts"]) {
      const source = readFileSync(resolve(import.meta.dirname, "../src", file), "utf8")
      const imports = [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1])
      for (const specifier of imports) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^(effect(\/[a-z-]+)?|@coursekit\/core|\.\/(AdminAuth|ApiProblems|CatalogueAuth|CoursekitApi|DomainProblems|GenerationEventStream|PathParams|Problems|ViewerAuth)\.ts)$/)
      }
    }
  })
})
