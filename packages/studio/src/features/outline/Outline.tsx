/**
 * The course's outline: its sections and lessons as the public course orders them (the
 * lessons without a section first, then each section with its lessons), each lesson a
 * link to its editor. "Add section" and "Add lesson"; each item can be renamed and
 * deleted (after a confirmation). Lessons and sections move by drag (dnd-kit: a handle,
 * with the pointer or the keyboard) and by their buttons "Move up", "Move down" and a
 * lesson's "Section" picker; a live region says where each move left the item.
 *
 * Every move is one PATCH of the item (`position`, and `section_id` across groups) naming
 * the version the outline read (`If-Match`); the outline is read again after it, so what
 * is shown is what is stored. One move at a time: the next waits for that read.
 */
import {
  type Announcements,
  closestCenter,
  type CollisionDetection,
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragOverEvent,
  type DragStartEvent,
  getFirstCollision,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  useDroppable,
  useSensor,
  useSensors
} from "@dnd-kit/core"
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable"
import { CSS, type Transform } from "@dnd-kit/utilities"
import { createContext, type RefCallback, useCallback, useContext, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "react"
import { Button, Label, Select, SelectValue } from "react-aria-components"
import { hrefOf } from "../../app/route.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { PublishState } from "../../shared/PublishState.tsx"
import { AddLessonDialog, AddSectionDialog, conflictMessage, DeleteDialog, RenameDialog, SectionOptions } from "./OutlineDialogs.tsx"
import {
  type DragKey,
  dragKeys,
  dragPreview,
  type DragTarget,
  dragTargetOf,
  dropMove,
  findLesson,
  type GroupId,
  groupPhrase,
  lessonMoveDown,
  lessonMoveToSection,
  lessonMoveUp,
  type Move,
  movedMessage,
  type Outline as OutlineData,
  type OutlineLesson,
  type OutlineSection,
  sectionMoveDown,
  sectionMoveUp
} from "./outlineMoves.ts"
import { useOutline, useOutlineWrite } from "./outlineQueries.ts"

const quoted = (title: string) => `“${title}”`

/** The controls of an item that keep focus across a move (its node may be made anew). */
type Control = "move-up" | "move-down" | "section" | "handle"

interface OutlineActions {
  readonly courseId: number
  /** The outline as shown (during a drag, as the drag shows it). */
  readonly outline: OutlineData
  /** The outline as read: what moves are computed from. */
  readonly stored: OutlineData
  readonly move: (move: Move | undefined, focus: { readonly key: DragKey; readonly control: Control }) => void
  readonly announce: (message: string, options?: { readonly itemGone: boolean }) => void
  /** What is being dragged, if anything: only its kind's places accept it. */
  readonly dragging: DragTarget["_tag"] | undefined
  /** A move is being stored: no drag starts meanwhile. */
  readonly pending: boolean
}

const Actions = createContext<OutlineActions | undefined>(undefined)
const useActions = () => useContext(Actions)!

export const Outline = ({ courseId }: { readonly courseId: number }) => {
  const outline = useOutline(courseId)
  const headingId = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const [announcement, setAnnouncement] = useState("")
  // A dialog whose item went away (deleted) cannot give focus back to its trigger: the heading takes it.
  const announce = useCallback((message: string, options?: { readonly itemGone: boolean }) => {
    setAnnouncement(message)
    if (options?.itemGone !== true) return
    // The dialog closes over a few frames; once focus has left it for nowhere, it comes here.
    const settle = (framesLeft: number) =>
      requestAnimationFrame(() => {
        const active = document.activeElement
        if (active === null || active === document.body || !active.isConnected) return heading.current?.focus()
        if (framesLeft > 0 && active.closest("[role=dialog], [role=alertdialog]") !== null) settle(framesLeft - 1)
      })
    settle(60)
  }, [])
  return (
    <section className="outline" aria-labelledby={headingId}>
      <div className="outline-header">
        <h2 id={headingId} ref={heading} tabIndex={-1}>Outline</h2>
        {outline.data !== undefined && (
          <div className="outline-add">
            <AddSectionDialog courseId={courseId} onDone={announce} />
            <AddLessonDialog courseId={courseId} outline={outline.data} onDone={announce} />
          </div>
        )}
      </div>
      <p className="hint">
        The order here is the public course's. Drag an item by its handle (⠿), or use its Move up, Move down and Section controls.
      </p>
      <p role="status" aria-label="Outline changes" className="outline-status">{announcement}</p>
      {outline.isPending && <p aria-busy="true">Loading the outline…</p>}
      {outline.isError && <p role="alert" className="error">{problemMessage(outline.error)}</p>}
      {outline.data !== undefined && <OutlineTree courseId={courseId} stored={outline.data} announce={announce} />}
    </section>
  )
}

/**
 * Which droppable a dragged item is over: a section only over sections; a lesson over
 * the lesson under the pointer, or the list under it (its nearest lesson, or the list
 * itself when empty: the lesson then goes to its end).
 */
const collide: CollisionDetection = (args) => {
  const active = dragTargetOf(args.active.id)
  const mine = args.droppableContainers.filter((container) => (dragTargetOf(container.id)?._tag === "section") === (active?._tag === "section"))
  const scoped = { ...args, droppableContainers: mine }
  if (active?._tag === "section") return closestCenter(scoped)
  const underPointer = pointerWithin(scoped)
  const hits = underPointer.length > 0 ? underPointer : rectIntersection(scoped)
  const lessonHit = hits.find((hit) => dragTargetOf(hit.id)?._tag === "lesson")
  if (lessonHit !== undefined) return [lessonHit]
  const groupId = getFirstCollision(hits, "id")
  if (groupId !== null) {
    const inGroup = mine.filter((container) => container.data.current?.group === groupId)
    return inGroup.length === 0 ? [{ id: groupId }] : closestCenter({ ...scoped, droppableContainers: inGroup })
  }
  return closestCenter(scoped)
}

/** What is dragged, and the outline as the drag shows it. */
interface DragState {
  readonly active: DragTarget
  readonly preview: OutlineData
}

const OutlineTree = ({ courseId, stored, announce }: {
  readonly courseId: number
  readonly stored: OutlineData
  readonly announce: OutlineActions["announce"]
}) => {
  const write = useOutlineWrite(courseId)
  const root = useRef<HTMLDivElement>(null)
  const [drag, setDragState] = useState<DragState>()
  // The drag as of the last event: a drop can follow a carry before React renders it.
  const dragNow = useRef<DragState>(undefined)
  const setDrag = (next: DragState | undefined) => {
    dragNow.current = next
    setDragState(next)
  }
  const [pending, setPending] = useState(false)
  const busy = useRef(false)
  // Where focus goes back to when the moved item's node was made anew (until a while after the move).
  const focusAfter = useRef<{ readonly key: DragKey; readonly control: Control; until: number }>(undefined)
  // A lesson just carried into another group: its layout settles for a frame before the next carry.
  const settling = useRef(false)
  const shown = drag?.preview ?? stored

  useLayoutEffect(() => {
    const target = focusAfter.current
    if (target === undefined || root.current === null) return
    if (Date.now() > target.until) return void (focusAfter.current = undefined)
    const active = document.activeElement
    if (active !== null && active !== document.body && active.isConnected) return
    const item = root.current.querySelector(`[data-outline-item="${target.key}"]`)
    const order: ReadonlyArray<Control> = [target.control, target.control === "move-up" ? "move-down" : "move-up", "handle"]
    for (const control of order) {
      const element = item?.querySelector<HTMLElement>(`[data-outline-control="${control}"]`)
      if (element !== null && element !== undefined && !(element as HTMLButtonElement).disabled) return element.focus()
    }
  })
  useEffect(() => {
    const frame = requestAnimationFrame(() => (settling.current = false))
    return () => cancelAnimationFrame(frame)
  }, [drag?.preview])
  // Focus the author takes elsewhere ends the care for it: it is never pulled back later.
  useEffect(() => {
    const focusTaken = (event: FocusEvent) => {
      const target = focusAfter.current
      const item = event.target instanceof Element ? event.target.closest("[data-outline-item]") : null
      if (target !== undefined && item?.getAttribute("data-outline-item") !== target.key) focusAfter.current = undefined
    }
    document.addEventListener("focusin", focusTaken)
    return () => document.removeEventListener("focusin", focusTaken)
  }, [])

  const move = useCallback((next: Move | undefined, focus: { readonly key: DragKey; readonly control: Control }) => {
    if (next === undefined) return
    if (busy.current) return announce("The previous move is still being saved: try again in a moment.")
    busy.current = true
    setPending(true)
    focusAfter.current = { ...focus, until: Number.POSITIVE_INFINITY }
    const title = next._tag === "lesson" ? next.lesson.title : next.section.title
    void write.mutateAsync({ _tag: "move", move: next }).then(
      (outcome) => {
        switch (outcome._tag) {
          case "done":
            return announce(outcome.outline === undefined ? `Moved ${quoted(title)}.` : movedMessage(outcome.outline, next))
          case "conflict":
            return announce(conflictMessage(title))
          case "failed":
            return announce(`${quoted(title)} was not moved: ${outcome.message} The outline shows what is stored.`)
          case "notEmpty":
            return
        }
      },
      (error: unknown) => announce(`${quoted(title)} was not moved: ${problemMessage(error)}`)
    ).finally(() => {
      if (focusAfter.current !== undefined) focusAfter.current.until = Date.now() + 1500
      busy.current = false
      setPending(false)
    })
  }, [write, announce])

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates })
  )
  const nameOf = (key: string | number | undefined): string => {
    const target = key === undefined ? undefined : dragTargetOf(key)
    if (target === undefined) return "the item"
    if (target._tag === "lesson") return quoted(findLesson(shown, target.id)?.lesson.title ?? "the lesson")
    if (target._tag === "section") return `section ${quoted(shown.sections.find((section) => section.id === target.id)?.title ?? "")}`
    return target.sectionId === null ? "the lessons without a section" : `the end of ${groupPhrase(shown, target.sectionId).replace(/^in /, "")}`
  }
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}.`,
    onDragOver: ({ active, over }) => (over === null ? `${nameOf(active.id)} is over no place.` : `${nameOf(active.id)} is over ${nameOf(over.id)}.`),
    onDragEnd: ({ active }) => `Dropped ${nameOf(active.id)}.`,
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled: it stays where it was.`
  }

  const onDragStart = ({ active }: DragStartEvent) => {
    focusAfter.current = undefined
    const target = dragTargetOf(active.id)
    if (target !== undefined) setDrag({ active: target, preview: stored })
  }
  /** The drag's outline with a dragged lesson carried into the group it is over (before or after the lesson there). */
  const carried = ({ active, over }: DragOverEvent | DragEndEvent): OutlineData | undefined => {
    const current = dragNow.current
    const target = dragTargetOf(active.id)
    const overTarget = over === null ? undefined : dragTargetOf(over.id)
    if (current === undefined || target?._tag !== "lesson" || overTarget === undefined) return current?.preview
    const translated = active.rect.current.translated
    const below = over !== null && translated !== null && translated.top + translated.height / 2 > over.rect.top + over.rect.height / 2
    return dragPreview(current.preview, target.id, overTarget, below)
  }
  const onDragOver = (event: DragOverEvent) => {
    const current = dragNow.current
    if (current === undefined || settling.current) return
    const preview = carried(event)
    if (preview === undefined || preview === current.preview) return
    settling.current = true
    setDrag({ ...current, preview })
  }
  const onDragEnd = (event: DragEndEvent) => {
    const { active, over } = event
    const target = dragTargetOf(active.id)
    // A drop can come before the carry its last move asked for was made: make it now.
    const preview = carried(event) ?? stored
    setDrag(undefined)
    if (target === undefined) return
    const next = dropMove(stored, preview, target, over === null ? undefined : dragTargetOf(over.id))
    const key = target._tag === "lesson" ? dragKeys.lesson(target.id) : target._tag === "section" ? dragKeys.section(target.id) : undefined
    if (key !== undefined) move(next, { key, control: "handle" })
  }

  const actions: OutlineActions = { courseId, outline: shown, stored, move, announce, dragging: drag?.active._tag, pending }
  const empty = shown.loose.length === 0 && shown.sections.length === 0
  return (
    <Actions.Provider value={actions}>
      <div ref={root} className="outline-tree" aria-busy={pending}>
        <DndContext
          sensors={sensors}
          collisionDetection={collide}
          onDragStart={onDragStart}
          onDragOver={onDragOver}
          onDragEnd={onDragEnd}
          onDragCancel={() => setDrag(undefined)}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable: "To pick up an item, press Space or Enter. Move it with the arrow keys, then press Space or Enter to drop it, " +
                "or Escape to cancel. Its Move up, Move down and Section controls move it too."
            }
          }}
        >
          {empty
            ? <p className="hint">No lessons yet: add the first with “Add lesson”, or start with “Add section”.</p>
            : <LessonGroup sectionId={null} lessons={shown.loose} label="Lessons without a section" hideWhenEmpty={shown.sections.length === 0} />}
          {shown.sections.length > 0 && (
            <SortableContext items={shown.sections.map((section) => dragKeys.section(section.id))} strategy={verticalListSortingStrategy}>
              <ol className="outline-sections" aria-label="Sections">
                {shown.sections.map((section) => <SectionItem key={section.id} section={section} />)}
              </ol>
            </SortableContext>
          )}
          <DragOverlay>{drag === undefined ? null : <DragGhost target={drag.active} outline={shown} />}</DragOverlay>
        </DndContext>
      </div>
    </Actions.Provider>
  )
}

/** What follows the pointer during a drag: the item's title. */
const DragGhost = ({ target, outline }: { readonly target: DragTarget; readonly outline: OutlineData }) => {
  const title = target._tag === "lesson"
    ? findLesson(outline, target.id)?.lesson.title
    : target._tag === "section"
    ? outline.sections.find((section) => section.id === target.id)?.title
    : undefined
  return <div className={`outline-ghost outline-ghost-${target._tag}`} aria-hidden="true"><span className="drag-glyph">⠿</span> {title}</div>
}

/**
 * A sortable item's node, moved by dnd-kit's transform. The transform is written to the
 * element's style through the CSSOM (allowed by the Content-Security-Policy, unlike a
 * `style` attribute).
 */
const useSortableNode = (setNodeRef: (node: HTMLElement | null) => void, transform: Transform | null, transition: string | undefined): RefCallback<HTMLElement> => {
  const node = useRef<HTMLElement | null>(null)
  useLayoutEffect(() => {
    if (node.current === null) return
    node.current.style.transform = CSS.Translate.toString(transform) ?? ""
    node.current.style.transition = transition ?? ""
  })
  return useCallback((element: HTMLElement | null) => {
    node.current = element
    setNodeRef(element)
  }, [setNodeRef])
}

/** "Move up" and "Move down" of an item named by the element `describedBy`; a move that cannot be made leaves its button disabled. */
const MoveButtons = ({ describedBy, up, down, onMove }: {
  readonly describedBy: string
  readonly up: Move | undefined
  readonly down: Move | undefined
  readonly onMove: (move: Move | undefined, control: "move-up" | "move-down") => void
}) => (
  <>
    <Button data-outline-control="move-up" aria-describedby={describedBy} isDisabled={up === undefined} onPress={() => onMove(up, "move-up")}>
      Move up
    </Button>
    <Button data-outline-control="move-down" aria-describedby={describedBy} isDisabled={down === undefined} onPress={() => onMove(down, "move-down")}>
      Move down
    </Button>
  </>
)

const LessonGroup = ({ sectionId, lessons, label, hideWhenEmpty = false }: {
  readonly sectionId: GroupId
  readonly lessons: ReadonlyArray<OutlineLesson>
  readonly label: string
  readonly hideWhenEmpty?: boolean
}) => {
  const { dragging } = useActions()
  const key = dragKeys.group(sectionId)
  const { setNodeRef, isOver } = useDroppable({ id: key, disabled: dragging === "section" })
  if (lessons.length === 0 && hideWhenEmpty) return null
  return (
    <div ref={setNodeRef} className="outline-group" data-over={isOver || undefined} data-outline-group={key}>
      <SortableContext items={lessons.map((lesson) => dragKeys.lesson(lesson.id))} strategy={verticalListSortingStrategy}>
        <ol className="outline-lessons" aria-label={label}>
          {lessons.map((lesson) => <LessonItem key={lesson.id} lesson={lesson} group={key} />)}
        </ol>
      </SortableContext>
      {lessons.length === 0 && (
        <p className="hint outline-empty">{sectionId === null ? "No lessons outside the sections." : "No lessons in this section yet."}</p>
      )}
    </div>
  )
}

const LessonItem = ({ lesson, group }: { readonly lesson: OutlineLesson; readonly group: DragKey }) => {
  const { courseId, outline, stored, move, announce, dragging, pending } = useActions()
  const key = dragKeys.lesson(lesson.id)
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: key,
    data: { group },
    disabled: { draggable: pending, droppable: dragging === "section" }
  })
  const ref = useSortableNode(setNodeRef, transform, transition)
  const titleId = useId()
  const up = lessonMoveUp(stored, lesson.id)
  const down = lessonMoveDown(stored, lesson.id)
  return (
    <li ref={ref} className="outline-lesson" aria-labelledby={titleId} data-outline-item={key} data-dragging={isDragging || undefined}>
      <button
        type="button"
        className="drag-handle"
        ref={setActivatorNodeRef}
        {...attributes}
        {...listeners}
        aria-label={`Drag ${quoted(lesson.title)}`}
        data-outline-control="handle"
      >
        <span aria-hidden="true">⠿</span>
      </button>
      <a id={titleId} className="outline-title" href={hrefOf({ _tag: "lesson", courseId, lessonId: lesson.id })}>{lesson.title}</a>
      <span className="outline-tags">
        <PublishState status={lesson.status} publishAt={lesson.publishAt} />
        {lesson.isPreview && <span className="tag">Free preview</span>}
      </span>
      <span className="outline-controls">
        <MoveButtons describedBy={titleId} up={up} down={down} onMove={(next, control) => move(next, { key, control })} />
        <Select
          className="react-aria-Select section-picker"
          value={lesson.sectionId ?? "loose"}
          onChange={(value) => {
            const sectionId = value === "loose" || value === null ? null : Number(value)
            move(lessonMoveToSection(stored, lesson.id, sectionId), { key, control: "section" })
          }}
        >
          <Label>Section</Label>
          <Button data-outline-control="section"><SelectValue /></Button>
          <SectionOptions outline={outline} />
        </Select>
        <RenameDialog courseId={courseId} item={{ _tag: "lesson", lesson }} onDone={announce} />
        <DeleteDialog courseId={courseId} item={{ _tag: "lesson", lesson }} onDone={announce} />
      </span>
    </li>
  )
}

const SectionItem = ({ section }: { readonly section: OutlineSection }) => {
  const { courseId, stored, move, announce, dragging, pending } = useActions()
  const key = dragKeys.section(section.id)
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: key,
    disabled: { draggable: pending, droppable: dragging === "lesson" }
  })
  const ref = useSortableNode(setNodeRef, transform, transition)
  const headingId = useId()
  const up = sectionMoveUp(stored, section.id)
  const down = sectionMoveDown(stored, section.id)
  const lessonsLabel = useMemo(() => `Lessons in ${quoted(section.title)}`, [section.title])
  return (
    <li ref={ref} className="outline-section" data-outline-item={key} data-dragging={isDragging || undefined}>
      <div className="outline-section-header" role="group" aria-labelledby={headingId}>
        <button
          type="button"
          className="drag-handle"
          ref={setActivatorNodeRef}
          {...attributes}
          {...listeners}
          aria-label={`Drag section ${quoted(section.title)}`}
          data-outline-control="handle"
        >
          <span aria-hidden="true">⠿</span>
        </button>
        <h3 id={headingId}>{section.title}</h3>
        <span className="outline-controls">
          <MoveButtons describedBy={headingId} up={up} down={down} onMove={(next, control) => move(next, { key, control })} />
          <RenameDialog courseId={courseId} item={{ _tag: "section", section }} onDone={announce} />
          <DeleteDialog courseId={courseId} item={{ _tag: "section", section }} onDone={announce} />
        </span>
      </div>
      <LessonGroup sectionId={section.id} lessons={section.lessons} label={lessonsLabel} />
    </li>
  )
}
