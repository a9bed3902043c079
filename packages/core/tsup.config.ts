import { packageBuild } from "../../tsup.base.ts"

// The pipelines alone, for worker threads (`@coursekit/core/html-pipelines`): no Effect to load.
export default packageBuild(["src/index.ts", "src/testing/index.ts", "src/html/HtmlPipelines.ts"])
