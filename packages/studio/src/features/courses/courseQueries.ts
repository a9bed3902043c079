/** The course list as the API pages it (list, or search), and creating a course. */
import { nextCursor } from "@coursekit/client"
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"

export type StatusFilter = "all" | "draft" | "scheduled" | "published"

export interface CoursePageRequest {
  readonly status: StatusFilter
  /** Search words; empty: the list. */
  readonly q: string
  /** Where the page starts (the previous page's `Link`); undefined: the first page. */
  readonly cursor: string | undefined
}

export const pageSize = 20

const fetchPage = async ({ status, q, cursor }: CoursePageRequest) => {
  if (q.trim() !== "") {
    // The authors' search: with a status (All is `all`), drafts and scheduled courses are found too.
    const { body, headers } = await studioClient.courses.search({
      query: { q: q.trim(), status, limit: pageSize, ...(cursor === undefined ? {} : { cursor }) }
    })
    return { items: body, next: nextCursor(headers.link) }
  }
  const { body, headers } = await studioClient.courses.list({
    query: {
      limit: pageSize,
      ...(status === "all" ? {} : { status }),
      ...(cursor === undefined ? {} : { cursor })
    }
  })
  return { items: body, next: nextCursor(headers.link) }
}

export const coursesKey = ["courses"] as const

export const useCoursePage = (request: CoursePageRequest) =>
  useQuery({ queryKey: [...coursesKey, request], queryFn: () => fetchPage(request), placeholderData: keepPreviousData })

export const useCreateCourse = () => {
  const queries = useQueryClient()
  return useMutation({
    // A new course is a draft: nobody sees it until its author publishes it.
    mutationFn: (title: string) => studioClient.courses.create({ payload: { title, content_html: "", status: "draft" } }).then(({ body }) => body),
    onSuccess: () => queries.invalidateQueries({ queryKey: coursesKey })
  })
}
