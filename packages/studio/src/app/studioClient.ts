/**
 * The Studio's one client of the API: the typed Promise client, with the session cookie
 * (same origin: the browser sends it) as the admin's credential.
 */
import { createClient } from "@coursekit/client"
import { apiBaseOf } from "./apiBase.ts"

export const studioClient = createClient({ baseUrl: apiBaseOf(window.location.href) })
export type StudioClient = typeof studioClient
