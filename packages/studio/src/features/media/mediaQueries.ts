/** The media library as the API pages it, deleting a file, and uploading files into it. */
import { CoursekitError, nextCursor } from "@coursekit/client"
import { CourseId, MediaFileId } from "@coursekit/core"
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"

export const mediaPageSize = 20
export const mediaKey = ["media"] as const

const fetchPage = async (cursor: string | undefined) => {
  const { body, headers } = await studioClient.media.list({
    query: { limit: mediaPageSize, ...(cursor === undefined ? {} : { cursor: MediaFileId.make(Number(cursor)) }) }
  })
  return { items: body, next: nextCursor(headers.link) }
}

/** One page of the library; `cursor` is where it starts (the previous page's `Link`), undefined: the first. */
export const useMediaPage = (cursor: string | undefined) =>
  useQuery({ queryKey: [...mediaKey, cursor], queryFn: () => fetchPage(cursor), placeholderData: keepPreviousData })

/** What a 409 says uses the file: lessons that play it, a course that shows it. */
export interface MediaUses {
  readonly lessons: ReadonlyArray<{ readonly course_id: number; readonly lesson_id: number }>
  readonly thumbnail_of: number | null
}

export const usesOf = (error: unknown): MediaUses | undefined => {
  if (!(error instanceof CoursekitError) || error.status !== 409) return undefined
  const { lessons, thumbnail_of } = error.problem as { lessons?: MediaUses["lessons"]; thumbnail_of?: number | null }
  return { lessons: Array.isArray(lessons) ? lessons : [], thumbnail_of: typeof thumbnail_of === "number" ? thumbnail_of : null }
}

export const useDeleteMedia = () => {
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (fileKey: string) => studioClient.media.delete({ query: { file_key: fileKey } }).then(() => undefined),
    onSuccess: () => queries.invalidateQueries({ queryKey: mediaKey })
  })
}

/** The titles a 409 names by id: the course's, and the lesson's (undefined while read, or gone). */
export const useCourseTitle = (courseId: number) =>
  useQuery({
    queryKey: ["media-uses", "course", courseId],
    queryFn: () => studioClient.courses.get({ params: { id: CourseId.make(courseId) } }).then((course) => course.title)
  })

export const useLessonTitle = (courseId: number, lessonId: number) =>
  useQuery({
    queryKey: ["media-uses", "lesson", courseId, lessonId],
    queryFn: () =>
      studioClient.lessons.list({ params: { id: CourseId.make(courseId) } }).then((lessons) => lessons.find((lesson) => lesson.id === lessonId)?.title ?? null)
  })
