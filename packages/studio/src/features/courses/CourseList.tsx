/**
 * The courses: search ("Search courses"), a status filter that applies to the list and the
 * search alike, paging as the API pages (its `Link` cursors, kept so "Previous page" goes
 * back), each course a link named by its title.
 */
import { useState } from "react"
import { Label, Radio, RadioGroup, SearchField, Input } from "react-aria-components"
import { hrefOf } from "../../app/route.ts"
import { PageButtons, useCursorPages } from "../../shared/CursorPaging.tsx"
import { problemMessage } from "../../shared/problemMessage.ts"
import { PublishState } from "../../shared/PublishState.tsx"
import { type StatusFilter, useCoursePage } from "./courseQueries.ts"
import { NewCourseDialog } from "./NewCourseDialog.tsx"

export const CourseList = () => {
  const [q, setQ] = useState("")
  const [status, setStatus] = useState<StatusFilter>("all")
  const pages = useCursorPages()
  const page = useCoursePage({ status, q, cursor: pages.cursor })

  return (
    <main className="courses">
      <div className="toolbar">
        <h1>Courses</h1>
        <NewCourseDialog />
      </div>
      <div className="filters">
        <SearchField value={q} onChange={(value) => (setQ(value), pages.restart())}>
          <Label>Search courses</Label>
          <Input />
        </SearchField>
        <RadioGroup value={status} onChange={(value) => (setStatus(value as StatusFilter), pages.restart())} orientation="horizontal">
          <Label>Status</Label>
          <Radio value="all">All</Radio>
          <Radio value="draft">Draft</Radio>
          <Radio value="scheduled">Scheduled</Radio>
          <Radio value="published">Published</Radio>
        </RadioGroup>
      </div>
      {page.isError && <p role="alert" className="error">{problemMessage(page.error)}</p>}
      {page.data !== undefined && (
        page.data.items.length === 0
          ? <p>No courses{q.trim() === "" && status === "all" ? " yet: create the first with “New course”." : " match."}</p>
          : (
            <ul className="course-list" aria-busy={page.isFetching}>
              {page.data.items.map((course) => (
                <li key={course.id}>
                  <a href={hrefOf({ _tag: "course", id: course.id })}>{course.title}</a>
                  <PublishState status={course.status} publishAt={course.publish_at} />
                </li>
              ))}
            </ul>
          )
      )}
      <PageButtons pages={pages} next={page.data?.next} />
    </main>
  )
}
