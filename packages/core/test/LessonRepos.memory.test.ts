import { Layer } from "effect"
import { CourseRepo, LessonRepo, MediaRepo, PurchaseRepo } from "../src/index.ts"
import { lessonRepoSuite, purchaseRepoSuite } from "../src/testing/index.ts"

lessonRepoSuite(
  "memory",
  Layer.mergeAll(LessonRepo.layerMemory, MediaRepo.layerMemory).pipe(Layer.provideMerge(CourseRepo.layerMemory)),
  { referencesMedia: false }
)
purchaseRepoSuite("memory", PurchaseRepo.layerMemory.pipe(Layer.provideMerge(CourseRepo.layerMemory)))
