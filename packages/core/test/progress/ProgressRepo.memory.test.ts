import { Layer } from "effect"
import { CourseRepo, LessonRepo, MediaRepo, ProgressRepo, PurchaseRepo } from "../../src/index.ts"
import { progressRepoSuite } from "../../src/testing/index.ts"

progressRepoSuite(
  "memory",
  ProgressRepo.layerMemory.pipe(
    Layer.provideMerge(Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory, MediaRepo.layerMemory)),
    Layer.provideMerge(CourseRepo.layerMemory)
  )
)
