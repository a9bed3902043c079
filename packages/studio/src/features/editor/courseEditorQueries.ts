/** The course an editor opens, and its save: an autosave naming the version it was made from. */
import { nextCursor, PreconditionFailedError } from "@coursekit/client"
import { CourseId, RevisionId } from "@coursekit/core"
import { useQuery } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import type { SaveOutcome } from "./SaveQueue.ts"

export const courseKey = (id: number) => ["course", id] as const

export const useCourse = (id: number) =>
  useQuery({ queryKey: courseKey(id), queryFn: () => studioClient.courses.get({ params: { id: CourseId.make(id) } }), staleTime: Infinity })

/** What the course editor changes. */
export interface CourseDraft {
  readonly title: string
  readonly description: string
  readonly content_html: string
}

/** The course as the API answered it, in the editor's terms (a 412's `current` is the admin GET's JSON). */
export const courseDraftOf = (course: { readonly title: string; readonly description: string | null; readonly content_html: string }): CourseDraft => ({
  title: course.title,
  description: course.description ?? "",
  content_html: course.content_html
})

type CourseUpdate = Parameters<typeof studioClient.courses.update>[0]["payload"]
type Course = Awaited<ReturnType<typeof studioClient.courses.update>>

/** One write of the course naming `version`, as the save lane's outcome; `onSaved` sees the course answered. */
export const writeCourse = async (
  id: number,
  payload: CourseUpdate,
  version: number,
  options: { readonly autosave: boolean; readonly onSaved?: (course: Course) => void }
): Promise<SaveOutcome> => {
  try {
    const saved = await studioClient.courses.update({ params: { id: CourseId.make(id) }, payload }, { ifMatch: version, autosave: options.autosave })
    options.onSaved?.(saved)
    return { _tag: "saved", version: saved.version }
  } catch (error) {
    if (error instanceof PreconditionFailedError) return { _tag: "conflict", current: error.current, currentVersion: error.currentVersion }
    return { _tag: "failed", message: problemMessage(error) }
  }
}

/** The autosave of the course's content. */
export const saveCourse = (id: number) => (draft: CourseDraft, version: number): Promise<SaveOutcome> =>
  // An empty description is none (null), as the course was created: not a change of its own.
  writeCourse(id, { title: draft.title, description: draft.description.trim() === "" ? null : draft.description, content_html: draft.content_html }, version, { autosave: true })

/** A page of the course's revisions, newest first, and the next page's cursor. */
export const courseRevisionPage = async (id: number, cursor: string | undefined) => {
  const { body, headers } = await studioClient.courses.revisions({
    params: { id: CourseId.make(id) },
    query: { limit: 20, ...(cursor === undefined ? {} : { cursor }) }
  })
  return { items: body, next: nextCursor(headers.link) }
}

/** One revision's snapshot of the course. */
export const courseRevision = (id: number, revisionId: number) =>
  studioClient.courses.revision({ params: { id: CourseId.make(id), revision_id: RevisionId.make(revisionId) } })

/** Writes a revision back as a new change naming `version`. */
export const restoreCourse = async (id: number, revisionId: number, version: number, onSaved: (course: Course) => void): Promise<SaveOutcome> => {
  try {
    const restored = await studioClient.courses.restore(
      { params: { id: CourseId.make(id), revision_id: RevisionId.make(revisionId) } },
      { ifMatch: version }
    )
    onSaved(restored)
    return { _tag: "saved", version: restored.version }
  } catch (error) {
    if (error instanceof PreconditionFailedError) return { _tag: "conflict", current: error.current, currentVersion: error.currentVersion }
    return { _tag: "failed", message: problemMessage(error) }
  }
}

/**
 * Uploads a thumbnail straight to storage and finalizes it, as a write of the course made
 * from `version`. Finalizing names no version, so the answer tells: a version other than
 * the next one means someone else saved meanwhile, which is a conflict like a 412.
 */
export const uploadCourseThumbnail = async (
  id: number,
  file: File,
  version: number,
  onProgress: (fraction: number) => void,
  onSaved: (course: Course) => void
): Promise<SaveOutcome> => {
  try {
    const course = await studioClient.uploadThumbnail(CourseId.make(id), file, {
      onProgress: ({ loaded, total }) => onProgress(total === 0 ? 1 : loaded / total)
    })
    onSaved(course)
    if (course.version !== version + 1) return { _tag: "conflict", current: course, currentVersion: course.version }
    return { _tag: "saved", version: course.version }
  } catch (error) {
    return { _tag: "failed", message: problemMessage(error) }
  }
}
