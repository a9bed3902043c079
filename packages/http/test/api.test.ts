import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { dirname, relative, resolve } from "node:path"
import * as Api from "../src/api.ts"

describe("@coursekit/http/api", () => {
  it("exports exactly the contract", () => {
    expect(Object.keys(Api).sort()).toEqual([
      "AdminAuth",
      "AdminSession",
      "AiApi",
      "ApiProblems",
      "BadGateway",
      "CatalogueAuth",
      "Conflict",
      "ContentTooLarge",
      "CoursePreconditionFailed",
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
      "LearningApi",
      "LessonLockedProblem",
      "LessonPreconditionFailed",
      "LessonsApi",
      "MediaApi",
      "MultipartApi",
      "NotFound",
      "NotReady",
      "PartConflict",
      "PreconditionRequired",
      "ProblemIssue",
      "PublicApi",
      "PurchasesApi",
      "ReadinessReport",
      "SectionPreconditionFailed",
      "SectionsApi",
      "ServiceUnavailable",
      "SessionApi",
      "SessionSignIn",
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
      "payloadParseOptions",
      "problemBody",
      "problemDeclaration",
      "problemTitles",
      "signInTokenMaxLength"
    ])
  })

  it("its modules import no server code", () => {
    const contract = ["auth/AdminAuth.ts", "problems/ApiProblems.ts", "auth/CatalogueAuth.ts", "CoursekitApi.ts", "problems/DomainProblems.ts", "problems/EditHeadersDoc.ts", "handlers/GenerationEventStream.ts", "PathParams.ts", "problems/Problems.ts", "auth/SessionCookieDoc.ts", "auth/ViewerAuth.ts"]
    const src = resolve(import.meta.dirname, "../src")
    for (const file of contract) {
      const source = readFileSync(resolve(src, file), "utf8")
      const imports = [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1]!)
      // The headers' and the cookie's descriptions are plain data and functions: they import nothing.
      if (file !== "problems/EditHeadersDoc.ts" && file !== "auth/SessionCookieDoc.ts") expect(imports.length, file).toBeGreaterThan(0)
      for (const specifier of imports) {
        // A relative import must land on another of the contract's files.
        const target = specifier.startsWith(".") ? relative(src, resolve(dirname(resolve(src, file)), specifier)) : specifier
        expect(target, `${file} imports ${specifier}`).toSatisfy((name: string) => /^(effect(\/[a-z-]+)?|@coursekit\/core)$/.test(name) || contract.includes(name))
      }
    }
  })
})
