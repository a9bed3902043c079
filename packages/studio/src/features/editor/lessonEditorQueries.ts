/**
 * The lesson an editor opens, and its writes: the autosave of its title and body, and the
 * other writes of the record (free preview, publishing, a restore), each naming the
 * version it was made from. The API has no read of one lesson: the course's lessons are
 * read and this one taken from them.
 */
import { nextCursor, PreconditionFailedError } from "@coursekit/client"
import { CourseId, LessonId, RevisionId } from "@coursekit/core"
import { useQuery } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import type { SaveOutcome } from "./SaveQueue.ts"

export const lessonKey = (courseId: number, lessonId: number) => ["lesson", courseId, lessonId] as const

type Lesson = Awaited<ReturnType<typeof studioClient.lessons.update>>
type LessonUpdate = Parameters<typeof studioClient.lessons.update>[0]["payload"]

/** The course has no such lesson (deleted, or a mistyped address). */
export class LessonMissing extends Error {
  override readonly name = "LessonMissing"
}

const fetchLesson = async (courseId: number, lessonId: number): Promise<Lesson> => {
  const lessons = await studioClient.lessons.list({ params: { id: CourseId.make(courseId) } })
  const lesson = lessons.find((candidate) => candidate.id === lessonId)
  if (lesson === undefined) throw new LessonMissing("This course has no such lesson: it may have been deleted.")
  return lesson
}

/**
 * The lesson, read afresh each time an editor opens it (`gcTime: 0`: nothing is kept once
 * no editor shows it). Moves in the outline change a lesson's version; an editor opened
 * from a kept copy would start with a conflict.
 */
export const useLesson = (courseId: number, lessonId: number) =>
  useQuery({
    queryKey: lessonKey(courseId, lessonId),
    queryFn: () => fetchLesson(courseId, lessonId),
    staleTime: Infinity,
    gcTime: 0,
    retry: (failures, error) => !(error instanceof LessonMissing) && failures < 1
  })

/** What the lesson editor autosaves. */
export interface LessonDraft {
  readonly title: string
  readonly content_html: string
}

/** The lesson as the API answered it, in the editor's terms (a 412's `current` is the admin JSON). */
export const lessonDraftOf = (lesson: { readonly title: string; readonly content_html: string }): LessonDraft => ({
  title: lesson.title,
  content_html: lesson.content_html
})

const outcomeOf = async (write: () => Promise<Lesson>, onSaved?: (lesson: Lesson) => void): Promise<SaveOutcome> => {
  try {
    const saved = await write()
    onSaved?.(saved)
    return { _tag: "saved", version: saved.version }
  } catch (error) {
    if (error instanceof PreconditionFailedError) return { _tag: "conflict", current: error.current, currentVersion: error.currentVersion }
    return { _tag: "failed", message: problemMessage(error) }
  }
}

/** One write of the lesson naming `version`, as the save lane's outcome; `onSaved` sees the lesson answered. */
export const writeLesson = (
  courseId: number,
  lessonId: number,
  payload: LessonUpdate,
  version: number,
  options: { readonly autosave: boolean; readonly onSaved?: (lesson: Lesson) => void }
): Promise<SaveOutcome> =>
  outcomeOf(
    () => studioClient.lessons.update(
      { params: { id: CourseId.make(courseId), lesson_id: LessonId.make(lessonId) }, payload },
      { ifMatch: version, autosave: options.autosave }
    ),
    options.onSaved
  )

/** The autosave of the lesson's title and body. */
export const saveLesson = (courseId: number, lessonId: number) => (draft: LessonDraft, version: number): Promise<SaveOutcome> =>
  writeLesson(courseId, lessonId, { title: draft.title, content_html: draft.content_html }, version, { autosave: true })

/** A page of the lesson's revisions, newest first, and the next page's cursor. */
export const lessonRevisionPage = async (courseId: number, lessonId: number, cursor: string | undefined) => {
  const { body, headers } = await studioClient.lessons.revisions({
    params: { id: CourseId.make(courseId), lesson_id: LessonId.make(lessonId) },
    query: { limit: 20, ...(cursor === undefined ? {} : { cursor }) }
  })
  return { items: body, next: nextCursor(headers.link) }
}

/** One revision's snapshot of the lesson. */
export const lessonRevision = (courseId: number, lessonId: number, revisionId: number) =>
  studioClient.lessons.revision({ params: { id: CourseId.make(courseId), lesson_id: LessonId.make(lessonId), revision_id: RevisionId.make(revisionId) } })

/** Writes a revision back as a new change naming `version`. */
export const restoreLesson = (courseId: number, lessonId: number, revisionId: number, version: number, onSaved: (lesson: Lesson) => void): Promise<SaveOutcome> =>
  outcomeOf(
    () => studioClient.lessons.restore(
      { params: { id: CourseId.make(courseId), lesson_id: LessonId.make(lessonId), revision_id: RevisionId.make(revisionId) } },
      { ifMatch: version }
    ),
    onSaved
  )
