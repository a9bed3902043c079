/**
 * The learner's page: a viewer signs in with their viewer token; the page shows a course's
 * outline (its loose lessons, then its sections) with the course's progress bar and each
 * lesson's state — done, open, locked, or upcoming with the date drip opens it — from
 * `GET /public/courses/{slug}` and `GET /me/courses/{id}/progress`. An open lesson's video
 * plays from its signed `video_url`, resuming where the learner stopped; its position is
 * saved every 10 s while it plays and on pause (`PUT /me/lessons/{id}/progress`), and
 * "Mark as done" completes a lesson. Bundled for the browser by server.ts.
 *
 * The course is the one `?course=<slug>` names; without it the page lists the courses the
 * viewer bought (`GET /me/courses`). The token stays in this tab (sessionStorage) until
 * "Sign out", so a reload keeps the viewer signed in.
 */
import { CoursekitError, type CoursekitPromiseClient, createClient } from "@coursekit/client"
import type { CourseId, CourseProgress, CourseProgressLesson, LessonId, PublicCourse, PublicLesson } from "@coursekit/core"
import { DateTime } from "effect"

/** How often the position of a playing video is saved (besides on pause). */
const saveEveryMs = 10_000
const tokenKey = "coursekit-viewer-token"

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const errorLine = element<HTMLParagraphElement>("error")
const tokenInput = element<HTMLInputElement>("token")
const player = element<HTMLVideoElement>("player")
const saved = element<HTMLParagraphElement>("saved")

/**
 * The signed-in viewer: their token and a client that sends it. A write takes the session
 * of its moment, so the place saved as the viewer signs out goes with their token, never
 * with the next viewer's.
 */
interface Session {
  readonly token: string
  readonly kit: CoursekitPromiseClient
}
let session: Session | undefined
const sessionOf = (token: string): Session => ({ token, kit: createClient({ baseUrl: location.origin, viewerToken: token }) })
/** The session, or a failure when the viewer signed out meanwhile. */
const signedIn = (): Session => {
  if (session === undefined) throw new Error("Signed out.")
  return session
}
const slug = new URLSearchParams(location.search).get("course") ?? ""

const explain = (cause: unknown) =>
  cause instanceof CoursekitError ? (cause.status === 0 ? cause.message : `${cause.status}: ${cause.message}`) : String(cause)

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const when = (instant: DateTime.Utc) => dateTimeFormat.format(DateTime.toDateUtc(instant))
/** 75.4 → "1:15". */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`

/** The user id a token names (its `sub`), for the greeting only: the service verifies the token. */
const subjectOf = (jwt: string): string | undefined => {
  try {
    const payload = atob(jwt.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/"))
    const sub = (JSON.parse(new TextDecoder().decode(Uint8Array.from(payload, (char) => char.charCodeAt(0)))) as { sub?: unknown }).sub
    return typeof sub === "string" ? sub : undefined
  } catch {
    return undefined
  }
}

// --- what the page shows ----------------------------------------------------------------

/** The course shown, and the viewer's progress in it (positions kept up to date as they are saved). */
let shown: { readonly course: PublicCourse; progress: CourseProgress; readonly positions: Map<LessonId, number> } | undefined
/** The lesson in the lesson panel. */
let current: PublicLesson | undefined

type LessonState = "done" | "open" | "locked" | "upcoming"

const progressOf = (id: LessonId): CourseProgressLesson | undefined => shown?.progress.lessons.find((lesson) => lesson.lesson_id === id)

/** What the learner may do with a lesson: the public course says whether it is open, the progress whether it is done. */
const stateOf = (lesson: PublicLesson): LessonState =>
  lesson.access === "locked" ? "locked" : lesson.access === "upcoming" ? "upcoming" : progressOf(lesson.id)?.completed_at ? "done" : "open"

const stateBadge = (lesson: PublicLesson, state: LessonState) => {
  const badge = document.createElement("span")
  badge.className = `state ${state}`
  if (state === "upcoming" && lesson.available_at !== null) {
    const time = document.createElement("time")
    time.dateTime = DateTime.formatIso(lesson.available_at)
    time.textContent = when(lesson.available_at)
    badge.append("Upcoming — opens ", time)
  } else {
    badge.textContent = { done: "Done", open: "Open", locked: "Locked", upcoming: "Upcoming" }[state]
  }
  return badge
}

const button = (label: string, describedBy: string, action: string, onClick: (control: HTMLButtonElement) => void) => {
  const control = document.createElement("button")
  control.type = "button"
  control.textContent = label
  // The lesson's title describes it: "Mark as done" stays the button's name.
  control.setAttribute("aria-describedby", describedBy)
  control.dataset.action = action
  control.addEventListener("click", () => onClick(control))
  return control
}

const lessonItem = (lesson: PublicLesson) => {
  const state = stateOf(lesson)
  const item = document.createElement("li")
  item.className = "lesson"
  item.dataset.lessonId = String(lesson.id)
  if (current?.id === lesson.id) item.setAttribute("aria-current", "true")
  const title = document.createElement("span")
  title.className = "lesson-title"
  title.id = `lesson-${lesson.id}-title`
  title.textContent = lesson.title
  item.append(title, stateBadge(lesson, state))
  const position = shown?.positions.get(lesson.id) ?? 0
  if (lesson.video_url !== null && position > 0 && state === "open" && current?.id !== lesson.id) {
    const meta = document.createElement("span")
    meta.className = "lesson-meta"
    meta.textContent = `Stopped at ${clock(position)}`
    item.append(meta)
  }
  const actions = document.createElement("div")
  actions.className = "actions"
  if (state === "open" || state === "done") {
    actions.append(button(lesson.video_url === null ? "Read" : "Play", title.id, "open", () => openLesson(lesson, true)))
    actions.append(state === "open"
      ? button("Mark as done", title.id, "complete", (control) => void complete(lesson, true, control))
      : button("Mark as not done", title.id, "complete", (control) => void complete(lesson, false, control)))
  }
  item.append(actions)
  return item
}

/** A button of the outline: its lesson and what it does. */
interface OutlineButton {
  readonly lessonId: string
  readonly action: string
}

const outlineButtonOf = (control: Element | null): OutlineButton | undefined => {
  const lessonId = control instanceof HTMLButtonElement ? control.closest<HTMLElement>(".lesson")?.dataset.lessonId : undefined
  return lessonId === undefined ? undefined : { lessonId, action: (control as HTMLButtonElement).dataset.action ?? "" }
}

/** Draws the course, its bar and its outline; the outline's focused button (or `focus`), redrawn, has the focus. */
const renderCourse = (focus: OutlineButton | undefined = outlineButtonOf(document.activeElement)) => {
  if (shown === undefined) return
  const { course, progress } = shown
  element("course-title").textContent = course.title
  element("course-note").textContent = progress.completed_at !== null
    ? `You completed this course on ${when(progress.completed_at)}.`
    : progress.purchased ? "" : "You have not bought this course: only its preview lessons are open."
  const bar = element("progress")
  bar.setAttribute("aria-valuenow", String(progress.percent))
  bar.setAttribute("aria-valuetext", `${progress.percent}% (${progress.lessons_completed} of ${progress.lessons_total} lessons done)`)
  bar.classList.toggle("complete", progress.percent === 100)
  element("progress-fill").style.width = `${progress.percent}%`
  element("progress-text").textContent = `${progress.lessons_completed} of ${progress.lessons_total} lessons done · ${progress.percent}%`

  const groups = [
    { title: null as string | null, lessons: course.lessons },
    ...course.sections.map((section) => ({ title: section.title, lessons: section.lessons }))
  ].filter((group) => group.lessons.length > 0)
  const outline = element("outline")
  outline.replaceChildren(...groups.flatMap((group) => {
    const list = document.createElement("ul")
    list.className = "lessons"
    list.append(...group.lessons.map(lessonItem))
    if (group.title === null) return [list]
    const heading = document.createElement("h3")
    heading.textContent = group.title
    return [heading, list]
  }))
  if (focus !== undefined) outline.querySelector<HTMLButtonElement>(`.lesson[data-lesson-id="${focus.lessonId}"] button[data-action="${focus.action}"]`)?.focus()
}

// --- saving progress --------------------------------------------------------------------

/** Progress writes go one at a time, in order: a late answer never overtakes a newer write. */
let writes: Promise<unknown> = Promise.resolve()
const queued = <A>(write: () => Promise<A>): Promise<A> => {
  const run = writes.then(write)
  writes = run.catch(() => undefined)
  return run
}

/** Saves where the video of lesson `id` is, unless that is where it was saved last. */
const savePosition = (id: LessonId, seconds: number) => {
  if (shown === undefined || session === undefined || !Number.isFinite(seconds)) return
  const position = Math.round(seconds * 10) / 10
  if (shown.positions.get(id) === position) return
  shown.positions.set(id, position)
  const { kit } = session
  void queued(() => kit.learning.recordProgress({ params: { lesson_id: id }, payload: { position_seconds: position } })).then(
    (answer) => {
      if (current?.id === id) saved.textContent = `Your place is saved: ${clock(answer.position_seconds)}.`
    },
    (cause: unknown) => {
      shown?.positions.delete(id) // the next save sends it again
      // Viewer tokens expire (the demo's after an hour): say so where it is heard.
      if (cause instanceof CoursekitError && cause.status === 401) errorLine.textContent = "Your sign-in has expired: sign out and in again to keep saving your place."
      else saved.textContent = `Your place could not be saved (${explain(cause)}).`
    }
  )
}

/** Marks a lesson done (or not), then reads the course's progress again for the bar. */
const complete = async (lesson: PublicLesson, completed: boolean, control: HTMLButtonElement) => {
  if (shown === undefined) return
  const courseId = shown.course.id
  // Disabling would drop the focus: the redrawn button gets it back.
  const focus = { lessonId: String(lesson.id), action: "complete" }
  control.disabled = true
  errorLine.textContent = ""
  try {
    const { kit } = signedIn()
    await queued(() => kit.learning.recordProgress({ params: { lesson_id: lesson.id }, payload: { completed } }))
    await refreshProgress(courseId, focus)
  } catch (cause) {
    errorLine.textContent = explain(cause)
    // 403: locked meanwhile (a refund), or not released yet; 404: gone. Show the course as it is now.
    if (cause instanceof CoursekitError && (cause.status === 403 || cause.status === 404)) await loadCourse().catch(() => undefined)
    else control.disabled = false
  }
}

const refreshProgress = async (courseId: CourseId, focus?: OutlineButton) => {
  const progress = await signedIn().kit.learning.courseProgress({ params: { id: courseId } })
  if (shown === undefined || shown.course.id !== courseId) return
  shown.progress = progress
  for (const lesson of progress.lessons) shown.positions.set(lesson.lesson_id, lesson.position_seconds)
  renderCourse(focus)
}

// --- the player -------------------------------------------------------------------------

/** Where the chosen video starts once its metadata is in; whether it then plays. */
let resumeAt = 0
let autoplay = false
/** Whether the video in the player is the current lesson's, at the learner's place: only then is its position saved. */
let tracking = false
let timer: ReturnType<typeof setInterval> | undefined
/** The lesson whose video URL was read again after a playback error (once per lesson). */
let refreshedFor: LessonId | undefined

const stopTimer = () => {
  if (timer !== undefined) clearInterval(timer)
  timer = undefined
}
const saveCurrent = () => {
  if (current !== undefined && tracking) savePosition(current.id, player.currentTime)
}

/** Saves the place in the lesson being left and empties the player. */
const leaveLesson = () => {
  stopTimer()
  saveCurrent()
  tracking = false
  current = undefined
  player.removeAttribute("src")
  player.load()
}

/** Shows `lesson` in the lesson panel; its video starts at `at` (default: where the learner stopped). */
const openLesson = (lesson: PublicLesson, play: boolean, at?: number) => {
  leaveLesson()
  current = lesson
  element("lesson-title").textContent = lesson.title
  element("lesson-placeholder").hidden = true
  // On a narrow screen the panel is under the outline.
  element("lesson-panel").scrollIntoView({ block: "nearest" })
  saved.textContent = ""
  // The service sanitized this HTML when it was written (DECISIONS §7): it is shown as stored.
  element("lesson-body").innerHTML = lesson.content_html ?? ""
  if (lesson.video_url !== null) {
    resumeAt = at ?? shown?.positions.get(lesson.id) ?? 0
    autoplay = play
    player.src = lesson.video_url
    player.hidden = false
    player.focus()
  } else {
    player.hidden = true
    element("lesson-title").focus()
  }
  renderCourse()
}

const closeLesson = () => {
  leaveLesson()
  element("lesson-title").textContent = "Choose a lesson"
  element("lesson-placeholder").hidden = false
  element("lesson-body").replaceChildren()
  saved.textContent = ""
  player.hidden = true
}

player.addEventListener("loadedmetadata", () => {
  if (current === undefined) return
  // A video watched to its end starts again from the beginning.
  if (resumeAt > 0 && resumeAt < player.duration - 1) player.currentTime = resumeAt
  tracking = true
  if (resumeAt > 0) saved.textContent = `Resumed at ${clock(player.currentTime)}.`
  if (autoplay) player.play().catch(() => undefined) // a browser may want a click on the controls first
})
player.addEventListener("play", () => {
  timer ??= setInterval(saveCurrent, saveEveryMs)
})
// Fired at the end of the video too.
player.addEventListener("pause", () => {
  stopTimer()
  saveCurrent()
})
player.addEventListener("seeked", () => {
  if (player.paused) saveCurrent()
})
player.addEventListener("error", () => {
  if (current === undefined || player.getAttribute("src") === null) return
  const lesson = current
  const at = tracking ? player.currentTime : resumeAt
  tracking = false
  stopTimer()
  // A signed URL works until video_url_expires_at: read the course again for a new one, once.
  if (refreshedFor === lesson.id) return void (errorLine.textContent = `"${lesson.title}" cannot be played.`)
  refreshedFor = lesson.id
  void loadCourse().then(() => {
    const again = lessonsOf(shown?.course).find((candidate) => candidate.id === lesson.id)
    if (again !== undefined && again.video_url !== null) openLesson(again, true, at)
  }, (cause: unknown) => (errorLine.textContent = explain(cause)))
})

// Closing or leaving the tab: the last place goes with a request that outlives the page
// (fetch's keepalive, which the client does not offer).
addEventListener("pagehide", () => {
  if (current === undefined || !tracking || session === undefined || shown === undefined) return
  const position = Math.round(player.currentTime * 10) / 10
  if (!Number.isFinite(position) || shown.positions.get(current.id) === position) return
  void fetch(`/me/lessons/${current.id}/progress`, {
    method: "PUT",
    keepalive: true,
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
    body: JSON.stringify({ position_seconds: position })
  }).catch(() => undefined)
})

// --- loading ----------------------------------------------------------------------------

const lessonsOf = (course: PublicCourse | undefined): ReadonlyArray<PublicLesson> =>
  course === undefined ? [] : [...course.lessons, ...course.sections.flatMap((section) => section.lessons)]

/** Reads the course `?course=` names and the viewer's progress in it, and shows them. */
const loadCourse = async () => {
  const reading = signedIn()
  const course = await reading.kit.public.course({ params: { slug } })
  const progress = await reading.kit.learning.courseProgress({ params: { id: course.id } })
  if (session !== reading) return
  shown = { course, progress, positions: new Map(progress.lessons.map((lesson) => [lesson.lesson_id, lesson.position_seconds])) }
  // The lesson in the panel keeps playing while it is open; else the panel is emptied.
  const again = current === undefined ? undefined : lessonsOf(course).find((lesson) => lesson.id === current!.id)
  if (current !== undefined && (again === undefined || !["open", "done"].includes(stateOf(again)))) closeLesson()
  else if (again !== undefined) current = again
  element("course-view").hidden = false
  renderCourse()
}

/** Lists the courses the viewer bought, each with their progress. */
const loadMyCourses = async () => {
  const reading = signedIn()
  const { body: courses } = await reading.kit.learning.myCourses({ query: {} })
  if (session !== reading) return
  element("course-list").replaceChildren(...courses.map((entry) => {
    const item = document.createElement("li")
    const link = document.createElement("a")
    link.href = `?course=${encodeURIComponent(entry.course.slug)}`
    link.textContent = entry.course.title
    const done = document.createElement("span")
    done.textContent = `${entry.lessons_completed} of ${entry.lessons_total} lessons done · ${entry.percent}%`
    item.append(link, done)
    return item
  }))
  element("no-courses").hidden = courses.length > 0
  element("my-courses").hidden = false
}

const showSignedIn = (yes: boolean) => {
  element("sign-in").hidden = yes
  element("signed-in").hidden = !yes
  element("intro").hidden = yes
  if (!yes) {
    element("course-view").hidden = true
    element("my-courses").hidden = true
  }
}

/** Shows what the page is for, as the signed-in viewer. */
const load = async () => {
  errorLine.textContent = ""
  const signIn = element<HTMLButtonElement>("sign-in-button")
  signIn.disabled = true
  try {
    if (slug === "") await loadMyCourses()
    else await loadCourse()
    if (session === undefined) return // signed out meanwhile
    const who = subjectOf(session.token)
    element("who").textContent = who === undefined ? "Signed in." : `Signed in as ${who}.`
    showSignedIn(true)
  } catch (cause) {
    if (cause instanceof CoursekitError && cause.status === 401) {
      signOut()
      errorLine.textContent = "The service refused this token (expired, malformed, or not signed for it). Sign in with another."
    } else {
      errorLine.textContent = slug !== "" && cause instanceof CoursekitError && cause.status === 404
        ? `There is no course "${slug}".`
        : explain(cause)
    }
  } finally {
    signIn.disabled = false
  }
}

const signOut = () => {
  if (current !== undefined) closeLesson()
  shown = undefined
  sessionStorage.removeItem(tokenKey)
  showSignedIn(false)
  // Its client goes once the writes queued so far (the last place) are sent.
  const ended = session
  session = undefined
  void writes.then(() => ended?.kit.dispose())
}

element<HTMLFormElement>("sign-in").addEventListener("submit", (event) => {
  event.preventDefault()
  const value = tokenInput.value.trim()
  if (value === "") return
  if (session !== undefined) signOut()
  session = sessionOf(value)
  sessionStorage.setItem(tokenKey, value)
  tokenInput.value = ""
  void load()
})
element("sign-out").addEventListener("click", () => {
  signOut()
  tokenInput.focus()
})

/** Demo only: the example's server signs a token for the user named; a real app's sign-in issues it. */
element("mint").addEventListener("click", async () => {
  errorLine.textContent = ""
  try {
    const response = await fetch("/demo/viewer-token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: element<HTMLInputElement>("demo-user").value })
    })
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
    tokenInput.value = ((await response.json()) as { token: string }).token
    tokenInput.focus()
  } catch (cause) {
    errorLine.textContent = `No demo token: ${cause instanceof Error ? cause.message : String(cause)}.`
  }
})

const stored = sessionStorage.getItem(tokenKey)
if (stored !== null) {
  session = sessionOf(stored)
  void load()
}
