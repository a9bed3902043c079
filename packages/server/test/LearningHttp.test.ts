import { learningHttpSuite } from "./LearningHttpSuite.ts"
import { layerTestServer } from "./TestServer.ts"

learningHttpSuite("PGlite", layerTestServer())
