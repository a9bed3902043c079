import { Layer } from "effect"
import { CourseRepo, LessonRepo, RevisionPolicies } from "../../src/index.ts"
import { revisionsSuite, revisionSuitePolicy } from "../../src/testing/index.ts"

revisionsSuite(
  "memory",
  LessonRepo.layerMemory.pipe(
    Layer.provideMerge(CourseRepo.layerMemory),
    Layer.provide(Layer.succeed(RevisionPolicies, revisionSuitePolicy))
  )
)
