/**
 * The whole core on in-memory layers — catalogue, uploads, lessons, purchases and the
 * public course, their repositories and an in-memory object store — sharing one state:
 * for tests, examples and trying Coursekit without a database or storage.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { Catalogue } from "./Catalogue.ts"
import { CourseRepo } from "./CourseRepo.ts"
import type { Entitlements } from "./Entitlements.ts"
import { FileUrl } from "./FileUrl.ts"
import { HtmlSanitizer } from "./HtmlSanitizer.ts"
import { LessonRepo } from "./LessonRepo.ts"
import { Lessons } from "./Lessons.ts"
import { MediaRepo } from "./MediaRepo.ts"
import { type MemoryObjectStore, ObjectStore } from "./ObjectStore.ts"
import { PublicCourses } from "./PublicCourses.ts"
import { PurchaseRepo } from "./PurchaseRepo.ts"
import { Purchases } from "./Purchases.ts"
import { UploadRepo } from "./UploadRepo.ts"
import { Uploads, type UploadsOptions } from "./Uploads.ts"

/** The use cases of the core. */
export type UseCases = Catalogue | Uploads | Lessons | PublicCourses | Purchases

/** The ports of the core. */
export type Ports = CourseRepo | LessonRepo | UploadRepo | MediaRepo | PurchaseRepo | Entitlements | ObjectStore

/** Every use case and port of the core, in memory; files under `cdnUrl`. */
export const layerMemory = (
  options: UploadsOptions & { readonly cdnUrl?: string | undefined } = {}
): Layer.Layer<UseCases | Ports | MemoryObjectStore> =>
  Layer.mergeAll(
    Catalogue.layerNoDeps,
    Uploads.layerNoDeps(options),
    Lessons.layerNoDeps,
    PublicCourses.layerNoDeps,
    Purchases.layerNoDeps
  ).pipe(
    Layer.provideMerge(Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory)),
    Layer.provideMerge(Layer.mergeAll(CourseRepo.layerMemory, UploadRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory)),
    Layer.provide([FileUrl.layer(options.cdnUrl ?? "http://localhost/files"), HtmlSanitizer.layer])
  )
