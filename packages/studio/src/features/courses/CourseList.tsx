/**
 * The courses: search ("Search courses"), a status filter that applies to the list and the
 * search alike, paging as the API pages (its `Link` cursors, kept so "Previous page" goes
 * back), each course a link named by its title.
 */
import { useState } from "react"
import { Button, Label, Radio, RadioGroup, SearchField, Input } from "react-aria-components"
import { hrefOf } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { PublishState } from "../../shared/PublishState.tsx"
import { type StatusFilter, useCoursePage } from "./courseQueries.ts"
import { NewCourseDialog } from "./NewCourseDialog.tsx"

export const CourseList = () => {
  const [q, setQ] = useState("")
  const [status, setStatus] = useState<StatusFilter>("all")
  // The cursors of the pages before this one; the last is this page's.
  const [cursors, setCursors] = useState<ReadonlyArray<string | undefined>>([undefined])
  const cursor = cursors.at(-1)
  const page = useCoursePage({ status, q, cursor })
  const restart = () => setCursors([undefined])
  return (
    <main className="courses">
      <div className="toolbar">
        <h1>Courses</h1>
        <NewCourseDialog />
      </div>
      <div className="filters">
        <SearchField value={q} onChange={(value) => (setQ(value), restart())}>
          <Label>Search courses</Label>
          <Input />
        </SearchField>
        <RadioGroup value={status} onChange={(value) => (setStatus(value as StatusFilter), restart())} orientation="horizontal">
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
      <nav className="paging" aria-label="Pages">
        <Button isDisabled={cursors.length === 1} onPress={() => setCursors(cursors.slice(0, -1))}>Previous page</Button>
        <Button isDisabled={page.data?.next === undefined} onPress={() => setCursors([...cursors, page.data?.next])}>Next page</Button>
      </nav>
    </main>
  )
}
