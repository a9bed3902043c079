/** The media library as the API pages it, deleting a file, and uploading files into it. */
import { CoursekitError, nextCursor } from "@coursekit/client"
import { CourseId, type MediaFilter, MediaUses } from "@coursekit/core"
import { Option, Schema } from "effect"
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"

export const mediaPageSize = 20
export const mediaKey = ["media"] as const

const fetchPage = async (cursor: string | undefined, filter: MediaFilter) => {
  const { body, headers } = await studioClient.media.list({
    query: {
      limit: mediaPageSize,
      ...(cursor === undefined ? {} : { cursor }),
      ...(filter.kind === undefined ? {} : { kind: filter.kind }),
      ...(filter.visibility === undefined ? {} : { visibility: filter.visibility })
    }
  })
  return { items: body, next: nextCursor(headers.link) }
}

/**
 * One page of the library, or of the files `filter` keeps (the API filters: a page is
 * full whatever the library holds); `cursor` is where it starts (the previous page's
 * `Link`), undefined: the first.
 */
export const useMediaPage = (cursor: string | undefined, filter: MediaFilter = {}) =>
  useQuery({
    queryKey: [...mediaKey, filter.kind, filter.visibility, cursor],
    queryFn: () => fetchPage(cursor, filter),
    placeholderData: keepPreviousData
  })

const decodeUses = Schema.decodeUnknownOption(MediaUses)

/** What a 409 says uses the file (the problem carries the fields the list's `used_by` has). */
export const usesOf = (error: unknown): MediaUses | undefined =>
  error instanceof CoursekitError && error.status === 409 ? Option.getOrUndefined(decodeUses(error.problem)) : undefined

export const useDeleteMedia = () => {
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (fileKey: string) => studioClient.media.delete({ query: { file_key: fileKey } }).then(() => undefined),
    onSuccess: () => queries.invalidateQueries({ queryKey: mediaKey })
  })
}

/**
 * The titles of what uses a file, by id: the course's, and the lesson's (undefined while
 * read, null when gone). A course's lessons are read once for all its lessons named on a
 * page, not once per lesson.
 */
export const useCourseTitle = (courseId: number) =>
  useQuery({
    queryKey: ["media-uses", "course", courseId],
    queryFn: () => studioClient.courses.get({ params: { id: CourseId.make(courseId) } }).then((course) => course.title)
  })

export const useLessonTitle = (courseId: number, lessonId: number) =>
  useQuery({
    queryKey: ["media-uses", "lessons", courseId],
    queryFn: () =>
      studioClient.lessons.list({ params: { id: CourseId.make(courseId) } }).then((lessons) => new Map(lessons.map((lesson) => [lesson.id as number, lesson.title]))),
    select: (titles) => titles.get(lessonId) ?? null
  })
