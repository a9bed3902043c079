/** What to tell the author of a failed call: the API's own words (its problem's detail) when it gave some. */
import { CoursekitError } from "@coursekit/client"

export const problemMessage = (error: unknown): string => {
  if (error instanceof CoursekitError) {
    const detail = error.problem?.detail
    if (typeof detail === "string" && detail !== "") return detail
    if (error.status === 0) return "The server could not be reached. Check your connection and try again."
    return error.message
  }
  return error instanceof Error ? error.message : String(error)
}
