import { publishingHttpSuite } from "./PublishingHttpSuite.ts"
import { layerTestServer } from "./TestServer.ts"

publishingHttpSuite("PGlite", layerTestServer())
