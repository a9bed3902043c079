/**
 * `npm start -- --demo` (or `DEMO=1`): something to look at on a first start (issue #37).
 * Once the server listens, an empty database gets two courses written through the API
 * itself, as an author's tools would write them: sections, free previews and paid lessons,
 * a lesson released by drip a week after purchase, a draft lesson, a thumbnail (a PNG
 * drawn at start) and a lecture video (a 16-second MP4 drawn at start; nothing is
 * downloaded or read from the repository, so a packed install has it too), public for
 * the preview and private for the paid lesson. A learner,
 * `demo-learner`, has bought the first course; their viewer token is printed with the
 * start-up lines. A database that has any course is left untouched, with one warning.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Option, Redacted } from "effect"
import * as Mp4Video from "./internal/Mp4Video.ts"
import * as Png from "./Png.ts"
import * as SecretFile from "./SecretFile.ts"
import type { ServerSettings } from "./ServerConfig.ts"

/** The learner who bought the first course. */
export const demoLearner = "demo-learner"

/** How long the printed viewer token works. */
const viewerTokenDays = 30

/** The demo course's thumbnail: warm stripes, drawn here (no image file needed). */
const thumbnailPng = () => Png.encode(640, 360, (x, y) => (Math.floor((x + y) / 24) % 2 === 0 ? [224, 142, 64] : [246, 214, 160]))

/** The lecture clip's picture, frames a second and length (~1.8 MB: raw samples, see `Mp4Video`). */
export const lectureClipFormat = { width: 256, height: 144, framesPerSecond: 2, seconds: 16 } as const

/**
 * The demo's lecture clip: the thumbnail's stripes moving to the left, over a white bar
 * along the bottom that grows with the time played (full in the last frame), so a player
 * visibly plays and seeks.
 */
export const lectureClip = () => {
  const { framesPerSecond, height, seconds, width } = lectureClipFormat
  const frames = framesPerSecond * seconds
  return Mp4Video.encode(lectureClipFormat, (frame, x, y) => {
    if (y >= height - 16) return x < Math.round(((frame + 1) / frames) * width) ? [255, 255, 255] : [60, 40, 30]
    return Math.floor((x + y + frame * 8) / 24) % 2 === 0 ? [224, 142, 64] : [246, 214, 160]
  })
}

const base64url = (text: string) => Buffer.from(text).toString("base64url")

/** An HS256 viewer token for `sub`, as `JwtViewerResolver` accepts them (with the configured issuer and audience). */
export const viewerToken = (secret: string, sub: string, claims: { readonly issuer?: string | undefined; readonly audience?: string | undefined }) => {
  const now = Math.floor(Date.now() / 1000)
  const payload = {
    sub,
    iat: now,
    exp: now + viewerTokenDays * 86_400,
    ...(claims.issuer === undefined ? {} : { iss: claims.issuer }),
    ...(claims.audience === undefined ? {} : { aud: claims.audience })
  }
  const signed = `${base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${base64url(JSON.stringify(payload))}`
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`
}

class DemoStepFailed extends Error {}

/** The API at `url`, as an admin: JSON in, JSON out; anything but the expected status fails the step. */
const adminApi = (url: string, adminToken: string) => async <A>(method: string, path: string, body: unknown, expected: number): Promise<A> => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (response.status !== expected) throw new DemoStepFailed(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return (text === "" ? undefined : JSON.parse(text)) as A
}

interface Issued {
  readonly upload_url: string
  readonly file_key: string
  readonly headers: Readonly<Record<string, string>>
}

const put = async (issued: Issued, bytes: Uint8Array<ArrayBuffer>) => {
  const response = await fetch(issued.upload_url, { method: "PUT", headers: issued.headers, body: bytes })
  if (!response.ok) throw new DemoStepFailed(`PUT of ${issued.file_key}: ${response.status}`)
}

/** What the demo wrote, for the start-up lines. */
export interface DemoAdded {
  readonly courses: ReadonlyArray<string>
}

/** Writes the demo through the API at `url`, unless the database has courses (then `undefined`). */
export const fill = (url: string, adminToken: string): Promise<DemoAdded | undefined> => {
  const api = adminApi(url, adminToken)
  return (async () => {
    const existing = await api<ReadonlyArray<unknown>>("GET", "/courses?limit=1", undefined, 200)
    if (existing.length > 0) return undefined
    const media = async (name: string, type: string, visibility: "public" | "private", bytes: Uint8Array<ArrayBuffer>) => {
      const issued = await api<Issued>("POST", "/admin/media/upload-url", { filename: name, type, visibility, size_bytes: bytes.length }, 200)
      await put(issued, bytes)
      return (await api<{ readonly file_key: string }>("POST", "/admin/media/finalize-upload", { file_key: issued.file_key }, 200)).file_key
    }
    const clip = lectureClip()
    const publicVideo = await media("welcome.mp4", "video/mp4", "public", clip)
    const privateVideo = await media("kneading.mp4", "video/mp4", "private", clip)

    const course = (title: string, description: string, content_html: string) =>
      api<{ readonly id: number }>("POST", "/courses", { title, description, content_html }, 201)
    const section = (courseId: number, title: string) => api<{ readonly id: number }>("POST", `/courses/${courseId}/sections`, { title }, 201)
    const lesson = (courseId: number, fields: Record<string, unknown>) => api<{ readonly id: number }>("POST", `/courses/${courseId}/lessons`, fields, 201)

    const bread = await course(
      "Bread at home",
      "Four loaves in two weeks, with nothing but flour, water, salt and yeast.",
      "<h2>What you will bake</h2><p>A plain white loaf, a wholemeal one, rolls and a focaccia.</p><ul><li>Week 1: the dough</li><li>Week 2: shaping and baking</li></ul>"
    )
    const image = thumbnailPng()
    const thumbnail = await api<Issued>("POST", `/courses/${bread.id}/upload-url`, { file_name: "bread.png", content_type: "image/png" }, 200)
    await put(thumbnail, image)
    await api("POST", `/courses/${bread.id}/finalize-upload`, { file_key: thumbnail.file_key }, 200)
    const dough = await section(bread.id, "Week 1: The dough")
    const baking = await section(bread.id, "Week 2: Shaping and baking")
    await lesson(bread.id, {
      title: "Welcome",
      section_id: dough.id,
      is_preview: true,
      video_key: publicVideo,
      content_html: "<p>A free preview: what you need, and how the course goes.</p>"
    })
    await lesson(bread.id, {
      title: "Kneading by hand",
      section_id: dough.id,
      video_key: privateVideo,
      content_html: "<p>Ten minutes of kneading, and how to tell the dough is ready: it springs back.</p>"
    })
    await lesson(bread.id, {
      title: "Shaping loaves",
      section_id: baking.id,
      available_after_days: 7,
      content_html: "<p>Released a week after you buy the course, once your first loaves are baked.</p>"
    })
    await lesson(bread.id, {
      title: "Sourdough (coming soon)",
      section_id: baking.id,
      status: "draft",
      content_html: "<p>A draft: only authors see it.</p>"
    })
    const knives = await course(
      "Knife skills",
      "Hold a chef's knife safely and cut faster.",
      "<p>Three short lessons: the grip, the claw and the rock chop.</p>"
    )
    const basics = await section(knives.id, "Basics")
    await lesson(knives.id, { title: "Holding the knife", section_id: basics.id, is_preview: true, content_html: "<p>Pinch the blade, wrap the handle.</p>" })
    await lesson(knives.id, { title: "The claw grip", section_id: basics.id, content_html: "<p>Fingertips tucked, knuckles guide the blade.</p>" })
    await lesson(knives.id, { title: "The rock chop", section_id: basics.id, content_html: "<p>The tip stays down; the heel rises and falls.</p>" })
    await api("PUT", `/admin/courses/${bread.id}/purchases/${demoLearner}`, undefined, 200)
    return { courses: ["Bread at home", "Knife skills"] }
  })()
}

/**
 * The settings of a demo start: without `JWT_SECRET` and `JWKS_URL`, viewer tokens are
 * signed with a key kept in the data directory (`demo-viewer-secret`), so the printed
 * token works, also after a restart.
 */
export const settingsOf = (settings: ServerSettings) =>
  Option.isSome(settings.jwtSecret) || Option.isSome(settings.jwksUrl)
    ? Effect.succeed({ ...settings, demo: true })
    : Effect.map(SecretFile.ensure(settings.dataDir, "demo-viewer-secret", ""), (file) => ({
      ...settings,
      demo: true,
      jwtSecret: Option.some(file.secret)
    })).pipe(Effect.provide(NodeServices.layer))

/** The demo's start-up lines: what was added and the learner's token, or why nothing was. */
export const run = (options: {
  readonly url: string
  readonly adminToken: Redacted.Redacted<string>
  readonly jwtSecret: Redacted.Redacted<string> | undefined
  readonly issuer: string | undefined
  readonly audience: string | undefined
}) =>
  Effect.gen(function*() {
    const added = yield* Effect.tryPromise({
      try: () => fill(options.url, Redacted.value(options.adminToken)),
      catch: (cause) => cause
    }).pipe(
      Effect.catch((cause) => Effect.as(Effect.logWarning(`Demo: could not be written (${cause instanceof Error ? cause.message : String(cause)}).`), null))
    )
    if (added === null) return
    if (added === undefined) {
      return yield* Effect.logWarning("Demo: this data directory already has courses, so nothing was added; the demo fills only an empty one (a new DATA_DIR).")
    }
    yield* Effect.logInfo(
      `Demo: added ${added.courses.map((title) => `“${title}”`).join(" and ")}; ${demoLearner} bought “${added.courses[0]}”.`
    )
    if (options.jwtSecret !== undefined) {
      const token = viewerToken(Redacted.value(options.jwtSecret), demoLearner, { issuer: options.issuer, audience: options.audience })
      yield* Effect.logInfo(`Demo: ${demoLearner}'s viewer token (${viewerTokenDays} days): ${token}`)
    } else {
      // JWKS_URL without JWT_SECRET: only the identity provider signs the tokens this server accepts.
      yield* Effect.logInfo(`Demo: no viewer token printed: viewer tokens are checked against JWKS_URL, so sign one for sub "${demoLearner}" with your identity provider.`)
    }
  })
