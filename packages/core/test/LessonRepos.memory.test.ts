import { Layer } from "effect"
import { CourseRepo, LessonRepo, PurchaseRepo } from "../src/index.ts"
import { lessonRepoSuite, purchaseRepoSuite } from "../src/testing/index.ts"

lessonRepoSuite("memory", LessonRepo.layerMemory.pipe(Layer.provideMerge(CourseRepo.layerMemory)))
purchaseRepoSuite("memory", PurchaseRepo.layerMemory.pipe(Layer.provideMerge(CourseRepo.layerMemory)))
