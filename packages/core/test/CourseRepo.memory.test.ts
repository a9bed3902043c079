import { CourseRepo } from "../src/index.ts"
import { courseRepoSuite } from "../src/testing/index.ts"

courseRepoSuite("in-memory", CourseRepo.layerMemory)
