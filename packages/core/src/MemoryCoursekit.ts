/**
 * The whole core on in-memory layers — catalogue, uploads and their sweep, lessons,
 * purchases, the public course and AI content, their repositories, an in-memory object
 * store, the models' cool-downs and admin sessions — sharing one state: for tests,
 * examples and trying Coursekit without a database or storage. Language models are whatever `models` holds (none: generation answers
 * `NoModelConfigured`).
 *
 * @since 0.1.0
 */
import { type Duration, Layer } from "effect"
import { Courses } from "./catalogue/Courses.ts"
import type { Ports, UseCases } from "./CoreServices.ts"
import { ContentGenerator, type ContentGeneratorOptions } from "./generation/ContentGenerator.ts"
import { LlmChain } from "./generation/LlmChain.ts"
import { CourseRepo } from "./catalogue/CourseRepo.ts"
import { FileUrl } from "./media/FileUrl.ts"
import { HtmlSanitizer } from "./html/HtmlSanitizer.ts"
import { LessonRepo } from "./lessons/LessonRepo.ts"
import type { LlmProvider } from "./generation/LlmProvider.ts"
import { Lessons } from "./lessons/Lessons.ts"
import { MediaRepo } from "./media/MediaRepo.ts"
import { MediaUrls } from "./media/MediaUrls.ts"
import { type MemoryObjectStore, ObjectStore } from "./media/ObjectStore.ts"
import { ProviderCooldowns } from "./generation/ProviderCooldowns.ts"
import { PublicCourseRows } from "./lessons/PublicCourseRows.ts"
import { PublicCourses } from "./lessons/PublicCourses.ts"
import { PurchaseRepo } from "./lessons/PurchaseRepo.ts"
import { Purchases } from "./lessons/Purchases.ts"
import { Learning } from "./progress/Learning.ts"
import { ProgressRepo } from "./progress/ProgressRepo.ts"
import { AdminSessionRepo } from "./sessions/AdminSessionRepo.ts"
import { UploadRepo } from "./media/UploadRepo.ts"
import { Uploads, type UploadsOptions } from "./media/Uploads.ts"
import { UploadSweep } from "./media/UploadSweep.ts"

/** Options of {@link layerMemory}. */
export interface MemoryCoursekitOptions extends UploadsOptions {
  /** Where files are served from. Default `http://localhost/files`. */
  readonly cdnUrl?: string | undefined
  /** How long signed URLs of private files work. Default 4 hours. */
  readonly mediaUrlTtl?: Duration.Duration | undefined
  /** The language models, in order (e.g. `ScriptedLlmProvider.layer` from `/testing`). Default none. */
  readonly models?: ReadonlyArray<Layer.Layer<LlmProvider>> | undefined
  /** Deadline and cool-down of model calls. */
  readonly generation?: ContentGeneratorOptions | undefined
}

/** Every use case and port of the core, in memory; files under `cdnUrl`. */
export const layerMemory = (
  options: MemoryCoursekitOptions = {}
): Layer.Layer<UseCases | UploadSweep | Ports | MemoryObjectStore> =>
  Layer.mergeAll(
    Courses.layerNoDeps.pipe(Layer.provideMerge(Uploads.layerNoDeps(options))),
    UploadSweep.layerNoDeps(options),
    Lessons.layerNoDeps,
    PublicCourses.layerNoDeps.pipe(Layer.provide(PublicCourseRows.layerFromPorts)),
    Purchases.layerNoDeps,
    Learning.layerNoDeps.pipe(Layer.provideMerge(ProgressRepo.layerMemory)),
    ContentGenerator.layerNoDeps(options.generation).pipe(Layer.provide(LlmChain.layer(options.models ?? [])))
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory, ProviderCooldowns.layerMemory, AdminSessionRepo.layerMemory)),
    Layer.provide(MediaUrls.layer({ ttl: options.mediaUrlTtl })),
    Layer.provideMerge(Layer.mergeAll(CourseRepo.layerMemory, UploadRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory)),
    Layer.provide([FileUrl.layer(options.cdnUrl ?? "http://localhost/files"), HtmlSanitizer.layer])
  )
