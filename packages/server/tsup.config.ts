import { packageBuild } from "../../tsup.base.ts"

// The sanitizer's worker thread is a module of its own (WorkerHtmlSanitizer loads it by path).
export default packageBuild(["src/index.ts", "src/main.ts", "src/htmlSanitizerWorker.ts"])
