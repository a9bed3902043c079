import { MediaRepo, UploadRepo } from "../../src/index.ts"
import { mediaRepoSuite, uploadRepoSuite } from "../../src/testing/index.ts"

uploadRepoSuite("memory", UploadRepo.layerMemory)
mediaRepoSuite("memory", MediaRepo.layerMemory)
