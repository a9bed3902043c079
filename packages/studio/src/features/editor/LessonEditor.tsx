/**
 * The lesson editor (`#/courses/{id}/lessons/{lessonId}`), as the course editor is: "Lesson
 * title" and the body ("Lesson body") saved about a second after the author stops typing,
 * a 412 answered by the conflict dialog, what the author typed kept in this browser until
 * the server has it. "Free preview", publishing and a restore from "History" are writes of
 * their own in the same save lane, each naming the version the one before it left.
 */
import { useQueryClient } from "@tanstack/react-query"
import { DateTime } from "effect"
import { useState } from "react"
import { Checkbox, FieldError, Input, Label, TextField } from "react-aria-components"
import { hrefOf } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { VideoPicker } from "../media/VideoPicker.tsx"
import { PublishState } from "../../shared/PublishState.tsx"
import { HistoryDialog } from "../history/HistoryDialog.tsx"
import { textOfHtml } from "../history/wordDiff.ts"
import { type PublishChange, PublishControls } from "../publishing/PublishControls.tsx"
import { ConflictDialog } from "./ConflictDialog.tsx"
import { useCourse } from "./courseEditorQueries.ts"
import {
  type LessonDraft,
  lessonDraftOf,
  lessonKey,
  lessonRevision,
  lessonRevisionPage,
  restoreLesson,
  saveLesson,
  useLesson,
  writeLesson
} from "./lessonEditorQueries.ts"
import { RichTextEditor } from "./RichTextEditor.tsx"
import { UnsavedCopyBanner } from "./UnsavedCopyBanner.tsx"
import { useAutosavedRecord } from "./useAutosavedRecord.ts"
import { statusText } from "./useAutosave.ts"

/** Where the author is: the course list, then the course (its title once known), a link back to each. */
const Breadcrumbs = ({ courseId }: { readonly courseId: number }) => {
  const course = useCourse(courseId)
  return (
    <nav aria-label="Breadcrumbs" className="breadcrumbs">
      <a href={hrefOf({ _tag: "courses" })}>Courses</a>
      <span aria-hidden="true"> › </span>
      <a href={hrefOf({ _tag: "course", id: courseId })}>{course.data?.title ?? "The course"}</a>
    </nav>
  )
}

export const LessonEditorPage = ({ courseId, lessonId }: { readonly courseId: number; readonly lessonId: number }) => {
  const lesson = useLesson(courseId, lessonId)
  if (lesson.isPending) return <main aria-busy="true"><Breadcrumbs courseId={courseId} /><p>Loading the lesson…</p></main>
  if (lesson.isError) {
    return (
      <main>
        <Breadcrumbs courseId={courseId} />
        <p role="alert" className="error">{problemMessage(lesson.error)}</p>
      </main>
    )
  }
  return <LessonEditor key={lessonId} courseId={courseId} lesson={lesson.data} />
}

type Lesson = NonNullable<ReturnType<typeof useLesson>["data"]>

const LessonEditor = ({ courseId, lesson }: { readonly courseId: number; readonly lesson: Lesson }) => {
  const queries = useQueryClient()
  const key = lessonKey(courseId, lesson.id)
  const [previewBusy, setPreviewBusy] = useState(false)
  const [previewError, setPreviewError] = useState<string>()
  const update = (changes: Partial<Lesson>) => queries.setQueryData(key, (old: Lesson | undefined) => (old === undefined ? old : { ...old, ...changes }))
  const { draft, status, queue, crashCopy, recovered, dismissRecovered, changed } = useAutosavedRecord<LessonDraft>({
    kind: "lesson",
    id: lesson.id,
    version: lesson.version,
    opened: lessonDraftOf(lesson),
    save: saveLesson(courseId, lesson.id),
    onSaved: (version, saved) => update({ ...saved, version })
  })
  const titleError = draft.shown.title.trim() === "" ? "A lesson needs a title." : undefined
  // Not an autosave: who may open the lesson is a decision, kept as a revision of its own.
  const changePreview = async (isPreview: boolean) => {
    setPreviewBusy(true)
    setPreviewError(undefined)
    const outcome = await queue.write((version) =>
      writeLesson(courseId, lesson.id, { is_preview: isPreview }, version, {
        autosave: false,
        onSaved: (saved) => update({ is_preview: saved.is_preview, version: saved.version })
      })
    )
    setPreviewBusy(false)
    if (outcome._tag === "failed") setPreviewError(outcome.message)
  }
  // Not an autosave either: the video a lesson plays is a change of its own.
  const changeVideo = async (videoKey: string | null) => {
    const outcome = await queue.write((version) =>
      writeLesson(courseId, lesson.id, { video_key: videoKey }, version, {
        autosave: false,
        onSaved: (saved) => update({ video_key: saved.video_key, video_url: saved.video_url, video_url_expires_at: saved.video_url_expires_at, version: saved.version })
      })
    )
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  const changePublishing = async (change: PublishChange) => {
    const payload = change._tag === "unpublish"
      ? { status: "draft" as const }
      : { status: "published" as const, publish_at: change.at }
    const outcome = await queue.write((version) =>
      writeLesson(courseId, lesson.id, payload, version, {
        autosave: false,
        onSaved: (saved) => update({ status: saved.status, publish_at: saved.publish_at, version: saved.version })
      })
    )
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  const restore = async (revisionId: number) => {
    const outcome = await queue.write((version) =>
      restoreLesson(courseId, lesson.id, revisionId, version, (restored) => {
        queries.setQueryData(key, restored)
        draft.replace(lessonDraftOf(restored))
        crashCopy.clear()
      })
    )
    void queries.invalidateQueries({ queryKey: [...key, "revisions"] })
    return outcome._tag === "failed" ? outcome.message : undefined
  }
  return (
    <main className="editor">
      <Breadcrumbs courseId={courseId} />
      <header className="editor-header">
        <h1>{draft.shown.title.trim() === "" ? "Untitled lesson" : draft.shown.title}</h1>
        <PublishState status={lesson.status} publishAt={lesson.publish_at} />
        {lesson.is_preview && <span className="tag">Free preview</span>}
        <p role="status" className={`save-status save-${status._tag}`}>{statusText(status)}</p>
      </header>
      {recovered !== undefined && (
        <UnsavedCopyBanner
          what="lesson"
          onRestore={() => {
            draft.replace(recovered.draft)
            queue.edit(draft.read)
            dismissRecovered()
          }}
          onDiscard={() => (crashCopy.clear(), dismissRecovered())}
        />
      )}
      <TextField value={draft.shown.title} onChange={(title) => (draft.setFields({ title }), changed())} isRequired maxLength={200} isInvalid={titleError !== undefined}>
        <Label>Lesson title</Label>
        <Input />
        <FieldError>{titleError}</FieldError>
      </TextField>
      <div className="preview-field">
        <Checkbox isSelected={lesson.is_preview} isDisabled={previewBusy} onChange={(selected) => void changePreview(selected)}>
          Free preview
        </Checkbox>
        <p className="hint">A free preview is open to everyone on the public course; the other lessons only to buyers.</p>
        {previewError !== undefined && <p role="alert" className="error">{previewError}</p>}
      </div>
      <VideoPicker videoUrl={lesson.video_url} isPreview={lesson.is_preview} onChoose={changeVideo} />
      <HistoryDialog
        source={{
          key,
          page: (cursor) => lessonRevisionPage(courseId, lesson.id, cursor),
          fieldsOf: async (revisionId) => {
            const { record } = await lessonRevision(courseId, lesson.id, revisionId)
            return historyFields(record).map(({ label, value }) => ({ label, left: value }))
          },
          current: () => Object.fromEntries(historyFields({ ...draft.read(), is_preview: lesson.is_preview }).map(({ label, value }) => [label, value])),
          restore
        }}
      />
      <PublishControls
        status={lesson.status}
        publishAt={lesson.publish_at === null ? null : DateTime.toDate(lesson.publish_at)}
        onChange={changePublishing}
      />
      <RichTextEditor label="Lesson body" html={draft.shown.content_html} resetKey={draft.resetKey} onChange={(body) => (draft.setBody(body), changed())} />
      {status._tag === "conflict" && (
        <ConflictDialog
          title="This lesson changed since you opened it"
          fields={conflictFields(lessonDraftOf(status.current as Lesson), draft.read())}
          onKeepMine={() => {
            queue.keepMine(status.currentVersion)
            // Their preview and publishing state stay theirs: show them.
            void queries.invalidateQueries({ queryKey: key, exact: true })
          }}
          onUseTheirs={() => {
            const theirs = lessonDraftOf(status.current as Lesson)
            queue.useTheirs(status.currentVersion)
            draft.replace(theirs)
            crashCopy.clear()
            void queries.invalidateQueries({ queryKey: key, exact: true })
          }}
        />
      )}
    </main>
  )
}

/** What "Keep mine" and "Use theirs" decide between: the autosaved fields. */
const conflictFields = (theirs: LessonDraft, mine: LessonDraft) => [
  { label: "Title", left: theirs.title, right: mine.title },
  { label: "Body", left: textOfHtml(theirs.content_html), right: textOfHtml(mine.content_html) }
]

/** What a revision is compared by (a restore writes these back, the preview included). */
const historyFields = (lesson: LessonDraft & { readonly is_preview: boolean }) => [
  { label: "Title", value: lesson.title },
  { label: "Free preview", value: lesson.is_preview ? "Yes" : "No" },
  { label: "Body", value: textOfHtml(lesson.content_html) }
]
