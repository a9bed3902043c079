/**
 * The page's script: creates a course, then uploads its thumbnail straight to storage
 * (presigned URL → PUT with a progress bar → finalize) with the typed client, and shows
 * the thumbnail from its `thumbnail_url`. Then a paid lesson: its video is uploaded the
 * same way as a *private* media file, and the public course is read as a student — a
 * buyer gets the lesson's signed `video_url` and the video plays; a visitor, or the buyer
 * after a refund, sees the lesson locked. Last, a large video goes up in parts
 * (`uploadMedia` past its `multipartThreshold`), which survives a reload: choosing the same
 * file again sends only the parts storage lacks. Bundled for the browser by server.ts.
 *
 * A refused thumbnail leaves no course behind: the user asked for a course *with* this
 * thumbnail. The API cannot take the file first (an upload URL is issued for an existing
 * course), so the page checks the file against the service's rules before it creates
 * anything, and deletes the course it just created when the upload or its finalize fails.
 */
import { CoursekitError, createClient } from "@coursekit/client"
import { type Course, type CourseId, type LessonId, UserId } from "@coursekit/core"
import { DateTime } from "effect"

/** What the service accepts as a thumbnail (the same rules it applies itself). */
interface ThumbnailRules {
  readonly contentTypes: ReadonlyArray<string>
  readonly maxBytes: number
}

declare global {
  interface Window {
    /** Handed to the page by the demo server; a real admin UI signs its admins in instead. */
    readonly COURSEKIT_DEMO_ADMIN_TOKEN: string
    /** Handed to the page by the demo server, from the service's settings. */
    readonly COURSEKIT_THUMBNAIL_RULES: ThumbnailRules
  }
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const form = element<HTMLFormElement>("form")
const progress = element<HTMLProgressElement>("progress")
const status = element<HTMLParagraphElement>("status")
const error = element<HTMLParagraphElement>("error")
const rules = window.COURSEKIT_THUMBNAIL_RULES
// The file picker offers what the service takes.
element<HTMLInputElement>("file").accept = rules.contentTypes.join(",")

const kit = createClient({ baseUrl: location.origin, adminToken: window.COURSEKIT_DEMO_ADMIN_TOKEN })

/** Why the service would refuse `file` as a thumbnail, or undefined when it would not. */
const refusal = (file: File): string | undefined => {
  // The client sends a file of no type as JPEG, as the specification's clients do.
  const type = file.type === "" ? "image/jpeg" : file.type
  if (!rules.contentTypes.includes(type)) return `${file.name} is ${type}; a thumbnail must be one of ${rules.contentTypes.join(", ")}.`
  if (file.size > rules.maxBytes) return `${file.name} is ${file.size} bytes; a thumbnail may be at most ${rules.maxBytes} bytes.`
  return undefined
}

/** The course the page created (the lesson goes into it), and the lesson it added. */
let current: Pick<Course, "id" | "slug"> | undefined
let lessonId: LessonId | undefined

const explain = (cause: unknown) => cause instanceof CoursekitError ? `${cause.status || "Error"}: ${cause.message}` : String(cause)

form.addEventListener("submit", async (event) => {
  event.preventDefault()
  const file = element<HTMLInputElement>("file").files?.[0]
  if (file === undefined) return
  error.textContent = ""
  status.textContent = ""
  progress.value = 0
  const refused = refusal(file)
  if (refused !== undefined) return void (error.textContent = refused)
  element<HTMLButtonElement>("submit").disabled = true
  let created: CourseId | undefined
  try {
    status.textContent = "Creating the course…"
    const { body: course } = await kit.courses.create({ payload: { title: element<HTMLInputElement>("title").value, content_html: "" } })
    created = course.id
    status.textContent = "Uploading the thumbnail…"
    const updated = await kit.uploadThumbnail(course.id, file, {
      onProgress: ({ loaded, total }) => (progress.value = total === 0 ? 1 : loaded / total)
    })
    created = undefined // the course is complete: it stays
    element<HTMLImageElement>("thumbnail").src = updated.thumbnail_url ?? ""
    element<HTMLImageElement>("thumbnail").alt = `Thumbnail of ${updated.title}`
    element("caption").textContent = `${updated.title} (${updated.slug})`
    element("result").hidden = false
    // The lesson section now works on this course; the viewer's waits for its lesson.
    current = { id: updated.id, slug: updated.slug }
    lessonId = undefined
    element("lesson-section").hidden = false
    element("viewer-section").hidden = true
    status.textContent = "Done."
  } catch (cause) {
    error.textContent = explain(cause)
    status.textContent = ""
    progress.value = 0
    if (created !== undefined) {
      // The upload failed after the course was created: take the course back.
      status.textContent = "Removing the course…"
      const id = created
      await kit.courses.delete({ params: { id } }).then(
        () => (status.textContent = "The course was not created."),
        (failure: unknown) => (status.textContent = `The course (id ${id}) could not be removed, delete it by hand: ${explain(failure)}`)
      )
    }
  } finally {
    element<HTMLButtonElement>("submit").disabled = false
  }
})

const lessonStatus = element<HTMLParagraphElement>("lesson-status")
const lessonError = element<HTMLParagraphElement>("lesson-error")
const lessonProgress = element<HTMLProgressElement>("lesson-progress")

element<HTMLFormElement>("lesson-form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const file = element<HTMLInputElement>("video").files?.[0]
  if (file === undefined || current === undefined) return
  const { id } = current
  lessonError.textContent = ""
  lessonProgress.value = 0
  element<HTMLButtonElement>("lesson-submit").disabled = true
  let finalized: string | undefined
  try {
    lessonStatus.textContent = "Uploading the video…"
    // Private: only signed URLs read it, which the service hands to buyers.
    const media = await kit.uploadMedia(file, {
      visibility: "private",
      onProgress: ({ loaded, total }) => (lessonProgress.value = total === 0 ? 1 : loaded / total)
    })
    finalized = media.file_key
    lessonStatus.textContent = "Adding the lesson…"
    // Not a preview: only buyers may watch it, which the service allows only for a private video.
    const lesson = await kit.lessons.create({ params: { id }, payload: { title: element<HTMLInputElement>("lesson-title").value, video_key: media.file_key, is_preview: false } })
    finalized = undefined // the lesson plays it: it stays
    lessonId = lesson.id
    lessonStatus.textContent = `Lesson ${lesson.position} "${lesson.title}" added; its video (${media.file_key}) is private.`
    element("viewer-section").hidden = false
  } catch (cause) {
    lessonError.textContent = explain(cause)
    lessonStatus.textContent = ""
    // A video no lesson plays would only take space: take it back.
    if (finalized !== undefined) await kit.media.delete({ query: { file_key: finalized } }).catch(() => undefined)
  } finally {
    element<HTMLButtonElement>("lesson-submit").disabled = false
  }
})

const access = element<HTMLParagraphElement>("access")
const player = element<HTMLVideoElement>("player")

/** A viewer token for `user`. Demo only: the example's server signs it; a real app's sign-in issues it. */
const tokenFor = async (user: UserId) => {
  const response = await fetch("/demo/viewer-token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user_id: user }) })
  if (!response.ok) throw new Error(`No viewer token: HTTP ${response.status}`)
  return ((await response.json()) as { token: string }).token
}

/** Reads the public course as `user` (undefined: a visitor) and shows the lesson: the video when it is open to them. */
const show = async (user: UserId | undefined) => {
  if (current === undefined || lessonId === undefined) return
  const viewer = createClient({ baseUrl: location.origin, viewerToken: user === undefined ? undefined : await tokenFor(user) })
  try {
    const read = await viewer.public.course({ params: { slug: current.slug } })
    const lesson = read.lessons.find((candidate) => candidate.id === lessonId)
    const who = user === undefined ? "a visitor" : user
    if (lesson?.video_url) {
      access.textContent = `As ${who}: "${lesson.title}" is ${lesson.access}; its video's signed URL works until ${lesson.video_url_expires_at === null ? "it is replaced" : DateTime.formatIso(lesson.video_url_expires_at)}.`
      player.src = lesson.video_url
      player.hidden = false
    } else {
      access.textContent = `As ${who}: "${lesson?.title}" is ${lesson?.access ?? "gone"}; buy the course to watch it.`
      player.removeAttribute("src")
      player.load() // drops what was loaded
      player.hidden = true
    }
  } finally {
    await viewer.dispose()
  }
}

/** Runs a viewer action; a failure is shown under the buttons. */
const act = (action: () => Promise<unknown>) => () =>
  void action().catch((cause: unknown) => (access.textContent = explain(cause)))

const student = () => UserId.make(element<HTMLInputElement>("user").value)
element("buy").addEventListener("click", act(async () => {
  await kit.purchases.grant({ params: { id: current!.id, user_id: student() } })
  await show(student())
}))
element("refund").addEventListener("click", act(async () => {
  await kit.purchases.revoke({ params: { id: current!.id, user_id: student() } })
  await show(student())
}))
element("as-visitor").addEventListener("click", act(() => show(undefined)))

// A large video, in parts: resumable after a reload (the client remembers the open upload
// in localStorage, keyed by the file's name, size, lastModified and type).
const MiB = 1024 * 1024
const largeProgress = element<HTMLProgressElement>("large-progress")
const largeStatus = element<HTMLParagraphElement>("large-status")
const largeError = element<HTMLParagraphElement>("large-error")
const mib = (bytes: number) => (bytes / MiB).toFixed(1)

element<HTMLFormElement>("large-form").addEventListener("submit", async (event) => {
  event.preventDefault()
  const file = element<HTMLInputElement>("large-video").files?.[0]
  if (file === undefined) return
  // The client's default is 64 MiB; the page lets the user lower it to see parts with a smaller file.
  const threshold = element<HTMLInputElement>("large-threshold").valueAsNumber * MiB
  const inParts = file.size >= threshold
  largeError.textContent = ""
  element("large-result").hidden = true
  // Indeterminate until the client reports: it may first look up an earlier upload of this file.
  largeProgress.removeAttribute("value")
  largeStatus.textContent = "Starting…"
  element<HTMLButtonElement>("large-upload").disabled = true
  // In parts, the first report is what storage already holds: more than 0 when an earlier upload resumes.
  let resumedAt: number | undefined
  const resumed = () => resumedAt !== undefined && resumedAt > 0 ? `; resumed: ${mib(resumedAt)} MiB were stored already` : ""
  try {
    const media = await kit.uploadMedia(file, {
      visibility: "private",
      multipartThreshold: threshold,
      onProgress: ({ loaded, total }) => {
        if (inParts) resumedAt ??= loaded
        largeProgress.value = total === 0 ? 1 : loaded / total
        largeStatus.textContent = `${mib(loaded)} of ${mib(total)} MiB sent${inParts ? " in parts" : ""}${resumed()}…`
      }
    })
    element("large-key").textContent = media.file_key
    element("large-size").textContent = String(media.size_bytes)
    const link = element<HTMLAnchorElement>("large-link")
    link.href = media.url
    link.title = media.url_expires_at === null ? "" : `Works until ${DateTime.formatIso(media.url_expires_at)}`
    element("large-result").hidden = false
    largeStatus.textContent = `Done: ${file.name} (${mib(file.size)} MiB) went up ${inParts ? "in parts" : "in one PUT"}${resumed()}.`
  } catch (cause) {
    largeError.textContent = explain(cause)
    // The parts stored stay with the open upload: uploading the same file again sends only the others.
    largeStatus.textContent = inParts ? "Upload the same file again to resume." : ""
  } finally {
    element<HTMLButtonElement>("large-upload").disabled = false
  }
})
