/**
 * `npm run bench`: every benchmark, one after the other. Each prints its own ratios
 * against a baseline measured in the same run.
 */
await import("./catalogue-list.ts")
await import("./catalogue-search.ts")
await import("./public-course.ts")
await import("./learner-progress.ts")
await import("./memory.ts")
await import("./html-sanitize.ts")
await import("./upload-finalize.ts")
await import("./upload-multipart.ts")
await import("./lesson-patch.ts")
await import("./ai-fallback.ts")
await import("./ai-stream.ts")
await import("./studio-speed.ts")
