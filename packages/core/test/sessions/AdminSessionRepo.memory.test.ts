import { AdminSessionRepo } from "../../src/index.ts"
import { adminSessionRepoSuite } from "../../src/testing/index.ts"

adminSessionRepoSuite("in-memory", AdminSessionRepo.layerMemory)
