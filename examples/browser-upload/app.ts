/**
 * The page's script: creates a course, then uploads its thumbnail straight to storage
 * (presigned URL → PUT with a progress bar → finalize) with the typed client, and shows
 * the thumbnail from its `thumbnail_url`. Bundled for the browser by server.ts.
 *
 * A refused thumbnail leaves no course behind: the user asked for a course *with* this
 * thumbnail. The API cannot take the file first (an upload URL is issued for an existing
 * course), so the page checks the file against the service's rules before it creates
 * anything, and deletes the course it just created when the upload or its finalize fails.
 */
import { CoursekitError, createClient } from "@coursekit/client"
import type { CourseId } from "@coursekit/core"

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
