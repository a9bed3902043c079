/**
 * The Studio's one client of the API: the typed Promise client, with the session cookie
 * (same origin: the browser sends it) as the admin's credential.
 */
import type { GenerateRequest } from "@coursekit/core"
import { createClient, streamGeneration } from "@coursekit/client"
import { Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { apiBaseOf } from "./apiBase.ts"

const baseUrl = apiBaseOf(window.location.href)

export const studioClient = createClient({ baseUrl })
export type StudioClient = typeof studioClient

/**
 * `POST /admin/ai/generate` as the typed client's event stream (`streamGeneration`), with
 * the session cookie. Interrupting the stream aborts the request, which stops the
 * generation on the server.
 */
export const studioGeneration = (request: GenerateRequest) =>
  streamGeneration({ baseUrl }, request).pipe(Stream.provide(FetchHttpClient.layer))
