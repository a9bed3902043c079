import { courseSearchHttpSuite } from "./CourseSearchHttpSuite.ts"
import { layerTestServer } from "./TestServer.ts"

courseSearchHttpSuite("PGlite", layerTestServer())
