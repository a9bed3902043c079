/**
 * Preview as learner: the public course page as a visitor or a buyer sees it, from the
 * server's own answer (`GET /admin/courses/{id}/preview`, built by the code that builds
 * `GET /public/courses/{slug}`): nothing about access is decided here. A course or lesson
 * the public does not see yet is shown, and marked "Not public yet".
 */
import { Label, Radio, RadioGroup } from "react-aria-components"
import { useState } from "react"
import { hrefOf } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { stateOf } from "../../shared/PublishState.tsx"
import { type Audience, type Preview, type PreviewLesson, usePreview } from "./previewQueries.ts"
import "./preview.css"

const formatWhen = (at: { readonly epochMilliseconds: number }) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(at.epochMilliseconds)

const audienceHelp: Record<Audience, string> = {
  visitor: "Anyone who has not bought the course, signed in or not: free previews open, the other lessons locked.",
  buyer: "Someone who bought the course just now: every lesson open, except those drip releases later."
}

/** What a learner reads of a lesson's access, beside its title. */
const accessLabel = (lesson: PreviewLesson): string => {
  switch (lesson.access) {
    case "preview":
      return "Free preview"
    case "purchased":
      return "Open"
    case "locked":
      return "Locked"
    case "upcoming":
      return lesson.available_at === null ? "Upcoming" : `Opens ${formatWhen(lesson.available_at)}`
  }
}

const LessonView = ({ lesson, notPublic }: { readonly lesson: PreviewLesson; readonly notPublic: Preview["not_public_lessons"][number] | undefined }) => {
  const headingId = `preview-lesson-${lesson.id}`
  return (
    <li>
      <article className={`preview-lesson preview-lesson-${lesson.access}`} aria-labelledby={headingId}>
        <header className="preview-lesson-header">
          <h4 id={headingId}>{lesson.position}. {lesson.title}</h4>
          <span className={`access access-${lesson.access}`}>{accessLabel(lesson)}</span>
          {notPublic !== undefined && (
            <span className="not-public-badge">Not public yet ({stateOf({ status: notPublic.status, publishAt: notPublic.publish_at }).label})</span>
          )}
        </header>
        {lesson.content_html !== null && (
          // The API's HTML, sanitized by the server on every write (the same pipeline as
          // the public page's); the Studio's policy forbids inline script besides.
          <div className="preview-body" dangerouslySetInnerHTML={{ __html: lesson.content_html }} />
        )}
        {lesson.video_url !== null && <video className="preview-video" controls preload="none" src={lesson.video_url} aria-label={`Video: ${lesson.title}`} />}
      </article>
    </li>
  )
}

const CoursePage = ({ preview }: { readonly preview: Preview }) => {
  const { course } = preview
  const notPublicOf = (id: number) => preview.not_public_lessons.find((lesson) => lesson.id === id)
  const lessons = (list: ReadonlyArray<PreviewLesson>) => (
    <ol className="preview-lessons">
      {list.map((lesson) => <LessonView key={lesson.id} lesson={lesson} notPublic={notPublicOf(lesson.id)} />)}
    </ol>
  )
  return (
    <article className="preview-page" aria-label="The course page as learners see it">
      <h2>{course.title}</h2>
      {course.description !== null && course.description !== "" && <p className="preview-description">{course.description}</p>}
      {course.thumbnail_url !== null && <img className="preview-thumbnail" src={course.thumbnail_url} alt="" />}
      {/* Sanitized by the server on every write, as above. */}
      <div className="preview-body" dangerouslySetInnerHTML={{ __html: course.content_html }} />
      <h3>Lessons</h3>
      {course.lessons.length === 0 && course.sections.length === 0 && <p className="hint">No lessons yet.</p>}
      {course.lessons.length > 0 && lessons(course.lessons)}
      {course.sections.map((section) => (
        <section key={section.id} className="preview-section" aria-labelledby={`preview-section-${section.id}`}>
          <h3 id={`preview-section-${section.id}`}>{section.title}</h3>
          {lessons(section.lessons)}
        </section>
      ))}
    </article>
  )
}

/** The view at `#/courses/{id}/preview`. */
export const CoursePreviewPage = ({ courseId }: { readonly courseId: number }) => {
  const [audience, setAudience] = useState<Audience>("visitor")
  const preview = usePreview(courseId, audience)
  const data = preview.data
  const courseState = data === undefined ? undefined : stateOf({ status: data.status, publishAt: data.publish_at })
  return (
    <main className="preview">
      <p>
        <a href={hrefOf({ _tag: "courses" })}>Courses</a> ›{" "}
        <a href={hrefOf({ _tag: "course", id: courseId })}>{data?.course.title ?? "The course"}</a>
      </p>
      <h1>Preview as learner</h1>
      <RadioGroup value={audience} onChange={(value) => setAudience(value as Audience)} orientation="horizontal">
        <Label>See the course as</Label>
        <Radio value="visitor">Visitor</Radio>
        <Radio value="buyer">Buyer</Radio>
      </RadioGroup>
      <p className="hint">{audienceHelp[audience]}</p>
      {preview.isError && <p role="alert" className="error">{problemMessage(preview.error)}</p>}
      {data === undefined && !preview.isError && <p aria-busy="true">Loading…</p>}
      {data !== undefined && (
        <>
          {!data.public && courseState !== undefined && (
            <div className="banner not-public" role="note" aria-label="Not public yet">
              <p>
                <strong>Not public yet.</strong>{" "}
                {courseState.tag === "scheduled"
                  ? `This course is ${courseState.label.replace(/^Scheduled/, "scheduled")}; until then learners cannot open it.`
                  : "This course is a draft: learners cannot open it until it is published."}
              </p>
            </div>
          )}
          {data.not_public_lessons.length > 0 && (
            <p className="hint">
              Lessons marked “Not public yet” are drafts or scheduled: learners do not see them until they are published.
            </p>
          )}
          <div aria-busy={preview.isFetching}>
            <CoursePage preview={data} />
          </div>
        </>
      )}
    </main>
  )
}
