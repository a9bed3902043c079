import { coursePreviewHttpSuite } from "./CoursePreviewHttpSuite.ts"
import { layerTestServer } from "./TestServer.ts"

coursePreviewHttpSuite("PGlite", layerTestServer())
