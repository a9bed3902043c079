/**
 * A course's outline as the API stores it (its lessons and sections), and every write of
 * it: each names the version of the record it changes (`If-Match`), and each is followed
 * by a fresh read of the outline, so what is shown is what is stored. A 412 is answered
 * by that read too: the view shows the record as it is now and says so.
 */
import { CoursekitError, PreconditionFailedError } from "@coursekit/client"
import { CourseId, LessonId, SectionId } from "@coursekit/core"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { studioClient } from "../../app/studioClient.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { applyMove, type GroupId, type Move, type Outline, type OutlineLesson, outlineOf, type OutlineSection } from "./outlineMoves.ts"

export const outlineKey = (courseId: number) => ["outline", courseId] as const

const fetchOutline = async (courseId: number): Promise<Outline> => {
  const params = { id: CourseId.make(courseId) }
  // Sections first: a lesson put in a section created between the two reads fails the
  // outline (OutlineMismatch), and the query's retry reads both again.
  const sections = await studioClient.sections.list({ params })
  const lessons = await studioClient.lessons.list({ params })
  return outlineOf(lessons, sections)
}

export const useOutline = (courseId: number) =>
  useQuery({ queryKey: outlineKey(courseId), queryFn: () => fetchOutline(courseId) })

/** One change of the outline. */
export type OutlineWrite =
  | { readonly _tag: "move"; readonly move: Move }
  | { readonly _tag: "addSection"; readonly title: string }
  | { readonly _tag: "addLesson"; readonly title: string; readonly sectionId: GroupId }
  | { readonly _tag: "renameLesson"; readonly lesson: OutlineLesson; readonly title: string }
  | { readonly _tag: "renameSection"; readonly section: OutlineSection; readonly title: string }
  | { readonly _tag: "deleteLesson"; readonly lesson: OutlineLesson }
  /** `detach`: its lessons become loose lessons (`?lessons=detach`); without it a section with lessons is refused. */
  | { readonly _tag: "deleteSection"; readonly section: OutlineSection; readonly detach: boolean }

/** How a write went, with the outline read after it (undefined when that read failed). */
export type OutlineWriteOutcome =
  | { readonly _tag: "done"; readonly outline: Outline | undefined; readonly createdId?: number }
  /** 412: the record changed since the outline was read; nothing was written. */
  | { readonly _tag: "conflict"; readonly outline: Outline | undefined }
  /** 409 of a section that still has lessons: nothing was deleted. */
  | { readonly _tag: "notEmpty"; readonly outline: Outline | undefined }
  | { readonly _tag: "failed"; readonly message: string; readonly outline: Outline | undefined }

const send = async (courseId: number, write: OutlineWrite): Promise<number | undefined> => {
  const id = CourseId.make(courseId)
  switch (write._tag) {
    case "move": {
      const { move } = write
      if (move._tag === "section") {
        await studioClient.sections.update(
          { params: { id, section_id: SectionId.make(move.section.id) }, payload: { position: move.patch.position } },
          { ifMatch: move.section.version }
        )
      } else {
        const { section_id, position } = move.patch
        await studioClient.lessons.update(
          {
            params: { id, lesson_id: LessonId.make(move.lesson.id) },
            payload: { position, ...(section_id === undefined ? {} : { section_id: section_id === null ? null : SectionId.make(section_id) }) }
          },
          { ifMatch: move.lesson.version }
        )
      }
      return undefined
    }
    case "addSection":
      return (await studioClient.sections.create({ params: { id }, payload: { title: write.title } })).id
    case "addLesson":
      // A new lesson starts as a draft: it is empty, and the course may be live.
      return (await studioClient.lessons.create({
        params: { id },
        payload: {
          title: write.title,
          content_html: "",
          status: "draft",
          ...(write.sectionId === null ? {} : { section_id: SectionId.make(write.sectionId) })
        }
      })).id
    case "renameLesson":
      await studioClient.lessons.update(
        { params: { id, lesson_id: LessonId.make(write.lesson.id) }, payload: { title: write.title } },
        { ifMatch: write.lesson.version }
      )
      return undefined
    case "renameSection":
      await studioClient.sections.update(
        { params: { id, section_id: SectionId.make(write.section.id) }, payload: { title: write.title } },
        { ifMatch: write.section.version }
      )
      return undefined
    case "deleteLesson":
      await studioClient.lessons.delete({ params: { id, lesson_id: LessonId.make(write.lesson.id) } }, { ifMatch: write.lesson.version })
      return undefined
    case "deleteSection":
      await studioClient.sections.delete(
        { params: { id, section_id: SectionId.make(write.section.id) }, query: write.detach ? { lessons: "detach" } : {} },
        { ifMatch: write.section.version }
      )
      return undefined
  }
}

/**
 * Writes of the outline. A move shows its result at once (the outline as it will be
 * stored), then the fresh read replaces it with what was stored.
 */
export const useOutlineWrite = (courseId: number) => {
  const queries = useQueryClient()
  const key = outlineKey(courseId)
  const reread = async (): Promise<Outline | undefined> => {
    // A read started before the write would show the outline from before it.
    await queries.cancelQueries({ queryKey: key, exact: true })
    try {
      return await queries.fetchQuery({ queryKey: key, queryFn: () => fetchOutline(courseId), staleTime: 0 })
    } catch {
      // The query shows the failure; the view keeps what it had.
      return undefined
    }
  }
  return useMutation({
    mutationFn: async (write: OutlineWrite): Promise<OutlineWriteOutcome> => {
      let createdId: number | undefined
      try {
        createdId = await send(courseId, write)
      } catch (error) {
        if (error instanceof PreconditionFailedError) return { _tag: "conflict", outline: await reread() }
        if (write._tag === "deleteSection" && error instanceof CoursekitError && error.status === 409) {
          return { _tag: "notEmpty", outline: await reread() }
        }
        return { _tag: "failed", message: problemMessage(error), outline: await reread() }
      }
      return { _tag: "done", outline: await reread(), ...(createdId === undefined ? {} : { createdId }) }
    },
    onMutate: async (write) => {
      if (write._tag !== "move") return
      await queries.cancelQueries({ queryKey: key, exact: true })
      queries.setQueryData<Outline>(key, (old) => (old === undefined ? old : applyMove(old, write.move)))
    }
  })
}
