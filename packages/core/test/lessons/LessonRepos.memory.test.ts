import { Layer } from "effect"
import { CourseRepo, LessonRepo, MediaRepo, PublicCourseRows, PurchaseRepo } from "../../src/index.ts"
import { lessonRepoSuite, publicCourseRowsSuite, purchaseRepoSuite } from "../../src/testing/index.ts"

lessonRepoSuite(
  "memory",
  Layer.mergeAll(LessonRepo.layerMemory, MediaRepo.layerMemory).pipe(Layer.provideMerge(CourseRepo.layerMemory)),
  { referencesMedia: false }
)
purchaseRepoSuite("memory", PurchaseRepo.layerMemory.pipe(Layer.provideMerge(CourseRepo.layerMemory)))
publicCourseRowsSuite(
  "memory (the ports' read)",
  PublicCourseRows.layerFromPorts.pipe(
    Layer.provideMerge(Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory, MediaRepo.layerMemory)),
    Layer.provideMerge(CourseRepo.layerMemory)
  )
)
