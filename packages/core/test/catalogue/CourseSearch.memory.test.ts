import { CourseRepo } from "../../src/index.ts"
import { courseSearchSuite } from "../../src/testing/index.ts"

courseSearchSuite("in-memory", CourseRepo.layerMemory)
