/**
 * The page's script: creates a course, then uploads its thumbnail straight to storage
 * (presigned URL → PUT with a progress bar → finalize) with the typed client, and shows
 * the thumbnail from its `thumbnail_url`. Bundled for the browser by server.ts.
 */
import { CoursekitError, createClient } from "@coursekit/client"

declare global {
  interface Window {
    /** Handed to the page by the demo server; a real admin UI signs its admins in instead. */
    readonly COURSEKIT_DEMO_ADMIN_TOKEN: string
  }
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const form = element<HTMLFormElement>("form")
const progress = element<HTMLProgressElement>("progress")
const status = element<HTMLParagraphElement>("status")
const error = element<HTMLParagraphElement>("error")

const kit = createClient({ baseUrl: location.origin, adminToken: window.COURSEKIT_DEMO_ADMIN_TOKEN })

form.addEventListener("submit", async (event) => {
  event.preventDefault()
  const file = element<HTMLInputElement>("file").files?.[0]
  if (file === undefined) return
  element<HTMLButtonElement>("submit").disabled = true
  error.textContent = ""
  progress.value = 0
  try {
    status.textContent = "Creating the course…"
    const { body: course } = await kit.courses.create({ payload: { title: element<HTMLInputElement>("title").value, content_html: "" } })
    status.textContent = "Uploading the thumbnail…"
    const updated = await kit.uploadThumbnail(course.id, file, {
      onProgress: ({ loaded, total }) => (progress.value = total === 0 ? 1 : loaded / total)
    })
    element<HTMLImageElement>("thumbnail").src = updated.thumbnail_url ?? ""
    element<HTMLImageElement>("thumbnail").alt = `Thumbnail of ${updated.title}`
    element("caption").textContent = `${updated.title} (${updated.slug})`
    element("result").hidden = false
    status.textContent = "Done."
  } catch (cause) {
    error.textContent = cause instanceof CoursekitError ? `${cause.status || "Error"}: ${cause.message}` : String(cause)
    status.textContent = ""
  } finally {
    element<HTMLButtonElement>("submit").disabled = false
  }
})
