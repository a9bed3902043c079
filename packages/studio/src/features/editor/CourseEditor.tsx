/**
 * The course editor: "Title", "Description", the slug, the body ("Course body"), saved
 * about a second after the author stops typing. A 412 opens the conflict dialog; what the
 * author typed is kept in this browser until the server has it, and offered again after a
 * crash.
 */
import { useQueryClient } from "@tanstack/react-query"
import { DateTime } from "effect"
import { Button, FieldError, Input, Label, TextArea, TextField } from "react-aria-components"
import { hrefOf, navigate } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { PublishState } from "../../shared/PublishState.tsx"
import { HistoryDialog } from "../history/HistoryDialog.tsx"
import { ThumbnailUpload } from "../media/ThumbnailUpload.tsx"
import { textOfHtml } from "../history/wordDiff.ts"
import { Outline } from "../outline/Outline.tsx"
import { type PublishChange, PublishControls } from "../publishing/PublishControls.tsx"
import { ConflictDialog } from "./ConflictDialog.tsx"
import {
  type CourseDraft,
  courseDraftOf,
  courseKey,
  courseRevision,
  courseRevisionPage,
  restoreCourse,
  saveCourse,
  uploadCourseThumbnail,
  useCourse,
  writeCourse
} from "./courseEditorQueries.ts"
import { RichTextEditor } from "./RichTextEditor.tsx"
import { UnsavedCopyBanner } from "./UnsavedCopyBanner.tsx"
import { useAutosavedRecord } from "./useAutosavedRecord.ts"
import { statusText } from "./useAutosave.ts"

export const CourseEditorPage = ({ id }: { readonly id: number }) => {
  const course = useCourse(id)
  if (course.isPending) return <main aria-busy="true"><p>Loading the course…</p></main>
  if (course.isError) {
    return (
      <main>
        <p><a href={hrefOf({ _tag: "courses" })}>Courses</a></p>
        <p role="alert" className="error">{problemMessage(course.error)}</p>
      </main>
    )
  }
  return <CourseEditor key={id} course={course.data} />
}

type Course = NonNullable<ReturnType<typeof useCourse>["data"]>

const CourseEditor = ({ course }: { readonly course: Course }) => {
  const queries = useQueryClient()
  const { draft, status, queue, crashCopy, recovered, dismissRecovered, changed } = useAutosavedRecord<CourseDraft>({
    kind: "course",
    id: course.id,
    version: course.version,
    opened: courseDraftOf(course),
    save: saveCourse(course.id),
    onSaved: (version, saved) =>
      queries.setQueryData(courseKey(course.id), (old: Course | undefined) => old === undefined ? old : { ...old, ...saved, version })
  })
  const titleError = draft.shown.title.trim() === "" ? "A course needs a title." : undefined
  const changePublishing = async (change: PublishChange) => {
    const payload = change._tag === "unpublish"
      ? { status: "draft" as const }
      : { status: "published" as const, publish_at: change.at }
    const outcome = await queue.write((version) =>
      writeCourse(course.id, payload, version, {
        autosave: false,
        onSaved: (saved) => queries.setQueryData(courseKey(course.id), (old: Course | undefined) => old === undefined ? old : { ...old, status: saved.status, publish_at: saved.publish_at, version: saved.version })
      })
    )
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  const uploadThumbnail = async (file: File, onProgress: (fraction: number) => void) => {
    const outcome = await queue.write((version) =>
      uploadCourseThumbnail(course.id, file, version, onProgress, (uploaded) =>
        queries.setQueryData(courseKey(course.id), (old: Course | undefined) =>
          old === undefined ? old : { ...old, thumbnail_key: uploaded.thumbnail_key, thumbnail_url: uploaded.thumbnail_url, version: uploaded.version }))
    )
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  const restore = async (revisionId: number) => {
    const outcome = await queue.write((version) =>
      restoreCourse(course.id, revisionId, version, (restored) => {
        queries.setQueryData(courseKey(course.id), restored)
        draft.replace(courseDraftOf(restored))
        crashCopy.clear()
      })
    )
    void queries.invalidateQueries({ queryKey: [...courseKey(course.id), "revisions"] })
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  return (
    <main className="editor">
      <p><a href={hrefOf({ _tag: "courses" })}>Courses</a></p>
      <header className="editor-header">
        <h1>{draft.shown.title.trim() === "" ? "Untitled course" : draft.shown.title}</h1>
        <PublishState status={course.status} publishAt={course.publish_at} />
        <p role="status" className={`save-status save-${status._tag}`}>{statusText(status)}</p>
      </header>
      {recovered !== undefined && (
        <UnsavedCopyBanner
          what="course"
          onRestore={() => {
            draft.replace(recovered.draft)
            queue.edit(draft.read)
            dismissRecovered()
          }}
          onDiscard={() => (crashCopy.clear(), dismissRecovered())}
        />
      )}
      <TextField value={draft.shown.title} onChange={(title) => (draft.setFields({ title }), changed())} isRequired maxLength={200} isInvalid={titleError !== undefined}>
        <Label>Title</Label>
        <Input />
        <FieldError>{titleError}</FieldError>
      </TextField>
      <TextField value={draft.shown.description} onChange={(description) => (draft.setFields({ description }), changed())} maxLength={500}>
        <Label>Description</Label>
        <TextArea rows={3} />
      </TextField>
      <HistoryDialog
        source={{
          key: courseKey(course.id),
          page: (cursor) => courseRevisionPage(course.id, cursor),
          fieldsOf: async (revisionId) => {
            const { record } = await courseRevision(course.id, revisionId)
            return comparedFields(courseDraftOf(record), courseDraftOf(record)).map(({ label, left }) => ({ label, left }))
          },
          current: () => {
            const mine = draft.read()
            return Object.fromEntries(comparedFields(mine, mine).map(({ label, right }) => [label, right]))
          },
          restore
        }}
      />
      <PublishControls
        status={course.status}
        publishAt={course.publish_at === null ? null : DateTime.toDate(course.publish_at)}
        onChange={changePublishing}
      />
      <Button onPress={() => navigate({ _tag: "preview", courseId: course.id })}>Preview as learner</Button>
      <p className="slug">Slug: <code>{course.slug}</code></p>
      <ThumbnailUpload url={course.thumbnail_url} onUpload={uploadThumbnail} />
      <RichTextEditor label="Course body" html={draft.shown.content_html} resetKey={draft.resetKey} onChange={(body) => (draft.setBody(body), changed())} />
      <Outline courseId={course.id} />
      {status._tag === "conflict" && (
        <ConflictDialog
          title="This course changed since you opened it"
          fields={comparedFields(courseDraftOf(status.current as Course), draft.read())}
          onKeepMine={() => queue.keepMine(status.currentVersion)}
          onUseTheirs={() => {
            const theirs = courseDraftOf(status.current as Course)
            queue.useTheirs(status.currentVersion)
            draft.replace(theirs)
            crashCopy.clear()
            void queries.invalidateQueries({ queryKey: courseKey(course.id) })
          }}
        />
      )}
    </main>
  )
}

const comparedFields = (theirs: CourseDraft, mine: CourseDraft) => [
  { label: "Title", left: theirs.title, right: mine.title },
  { label: "Description", left: theirs.description, right: mine.description },
  { label: "Body", left: textOfHtml(theirs.content_html), right: textOfHtml(mine.content_html) }
]
