/** The course as learners would see it: the admins' preview of the public course (`GET /admin/courses/{id}/preview`). */
import { CourseId } from "@coursekit/core"
import { keepPreviousData, useQuery } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"

/** Whom the preview shows the course to: a visitor (no purchase) or a buyer (bought it now). */
export type Audience = "visitor" | "buyer"

export type Preview = Awaited<ReturnType<typeof studioClient.public.preview>>
export type PreviewLesson = Preview["course"]["lessons"][number]

export const usePreview = (courseId: number, audience: Audience) =>
  useQuery({
    queryKey: ["course", courseId, "preview", audience],
    queryFn: () => studioClient.public.preview({ params: { id: CourseId.make(courseId) }, query: { as: audience } }),
    // The other audience's page stays on screen while this one loads: the switch does not blink.
    placeholderData: keepPreviousData
  })
