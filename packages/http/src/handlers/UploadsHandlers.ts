/**
 * Handlers of the upload endpoints — course thumbnails and the admin media library —
 * over the core's {@link Uploads}.
 *
 * @since 0.1.0
 */
import { defaultPageSize, Uploads } from "@coursekit/core"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"
import { withNextLink } from "./NextPageLink.ts"
import { MountPrefix } from "../edge/RequestPath.ts"
import { creatorEdit } from "./EditHeaders.ts"
import { mediaOfCursor } from "../PathParams.ts"

/** The `courseUploads` group. Needs `Uploads`. */
export const layerCourseUploads = HttpApiBuilder.group(CoursekitApi, "courseUploads", Effect.fn(function*(handlers) {
  const uploads = yield* Uploads
  return handlers.handleAll({
    uploadUrl: ({ params, payload }) => problems(uploads.courseThumbnailUploadUrl(params.id, payload)),
    // The new thumbnail is a change of the course: its revision names this admin.
    finalizeUpload: ({ params, payload }) =>
      Effect.flatMap(creatorEdit, (edit) => problems(uploads.finalizeCourseThumbnail(params.id, payload, edit)))
  })
}))

/** The `media` group. Needs `Uploads`. */
export const layerMedia = HttpApiBuilder.group(CoursekitApi, "media", Effect.fn(function*(handlers) {
  const uploads = yield* Uploads
  const prefix = yield* MountPrefix
  return handlers.handleAll({
    uploadUrl: ({ payload }) => problems(uploads.mediaUploadUrl(payload)),
    finalizeUpload: ({ payload }) => problems(uploads.finalizeMedia(payload)),
    list: ({ query, request }) => {
      const limit = query.limit ?? defaultPageSize
      const filter = { kind: query.kind, visibility: query.visibility }
      return uploads.listMedia({ ...filter, cursor: mediaOfCursor(query.cursor), limit }).pipe(
        Effect.map((page) => withNextLink(page, { prefix, url: request.url, limit, keep: filter })),
        problems
      )
    },
    delete: ({ query }) => problems(uploads.deleteMedia(query.file_key))
  })
}))

/** The `multipart` group. Needs `Uploads`. */
export const layerMultipart = HttpApiBuilder.group(CoursekitApi, "multipart", Effect.fn(function*(handlers) {
  const uploads = yield* Uploads
  return handlers.handleAll({
    create: ({ payload }) => problems(uploads.startMultipart(payload)),
    partUrls: ({ params, payload }) => problems(uploads.multipartPartUrls(params.upload_id, payload)),
    status: ({ params }) => problems(uploads.multipartStatus(params.upload_id)),
    complete: ({ params, payload }) => problems(uploads.completeMultipart(params.upload_id, payload)),
    abort: ({ params }) => problems(uploads.abortMultipart(params.upload_id))
  })
}))

/** The three groups. */
export const layer = Layer.mergeAll(layerCourseUploads, layerMedia, layerMultipart)
