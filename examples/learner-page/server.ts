/**
 * The learner page example: a plain page (app.ts, bundled by esbuild) where a viewer signs
 * in with a viewer token and follows a course: its outline with a progress bar and each
 * lesson's state, the paid lesson's private video resuming where they stopped, "Mark as
 * done". Coursekit's standalone service (embedded PGlite, files on local disk) runs behind
 * the examples' front server (examples/shared/FrontServer.ts); the page gets no admin
 * token. `POST /demo/viewer-token` mints viewer tokens (demo only).
 *
 * Run: npm run example:learner-page   (PORT, default 3007), then open the printed URL. The
 * script seeds a demo course and records a purchase for learner-1. With JWT_SECRET set (at
 * least 32 characters), `npm run -s viewer-token -- learner-1` mints tokens the page takes.
 */
import { createClient } from "@coursekit/client"
import type { Course, Lesson } from "@coursekit/core"
import { UserId } from "@coursekit/core"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { demoViewerTokenRoute } from "../shared/DemoViewerToken.ts"
import { type FrontServer, runExample, startFrontServer } from "../shared/FrontServer.ts"

/** Starts the example on `port` (0: any free one); its service verifies viewer tokens with `jwtSecret` (default: a random one). */
export const start = (port: number, jwtSecret: string = randomBytes(32).toString("base64url")) =>
  startFrontServer({
    name: "learner-page",
    directory: import.meta.dirname,
    port,
    // A learner's page is no admin's.
    adminTokenToPage: false,
    settings: { JWT_SECRET: jwtSecret },
    route: demoViewerTokenRoute("learner-page", jwtSecret)
  })

/** The demo course's lessons, as the admin API created them. */
export interface DemoCourse {
  readonly course: Course
  /** Loose, a preview: open to everyone (no video). */
  readonly welcome: Lesson
  /** In "Week 1", paid: its video is a private media file, played through signed URLs. */
  readonly moves: Lesson
  /** In "Week 2", paid, released 7 days after the purchase (drip). */
  readonly lifetimes: Lesson
}

/**
 * Creates the demo course through the admin API, as an author's tools would: a preview
 * lesson, a section with a paid lesson whose `video` goes up as a private media file, and
 * a section with a lesson drip releases a week after the purchase.
 */
export const seedDemoCourse = async (example: FrontServer, video: File): Promise<DemoCourse> => {
  const admin = createClient({ baseUrl: example.url, adminToken: example.adminToken })
  try {
    const { body: course } = await admin.courses.create({
      payload: { title: "Rust ownership, step by step", content_html: "<p>Moves, borrows and lifetimes, one lesson at a time.</p>" }
    })
    const id = course.id
    const welcome = await admin.lessons.create({
      params: { id },
      payload: {
        title: "Welcome: how this course works",
        is_preview: true,
        content_html: "<p>Each week opens a new part of the course. Watch the video, try the exercise, then mark the lesson as done.</p>"
      }
    })
    const week1 = await admin.sections.create({ params: { id }, payload: { title: "Week 1: ownership" } })
    // Private: only the signed URLs the public course hands to buyers read it.
    const media = await admin.uploadMedia(video, { visibility: "private" })
    const moves = await admin.lessons.create({
      params: { id },
      payload: {
        title: "Moves and borrows",
        section_id: week1.id,
        is_preview: false,
        video_key: media.file_key,
        content_html: "<p>A value has one owner. Passing it on <strong>moves</strong> it; a reference <em>borrows</em> it.</p>"
      }
    })
    const week2 = await admin.sections.create({ params: { id }, payload: { title: "Week 2: lifetimes" } })
    const lifetimes = await admin.lessons.create({
      params: { id },
      payload: {
        title: "Lifetimes in signatures",
        section_id: week2.id,
        is_preview: false,
        available_after_days: 7,
        content_html: "<p>How long a borrow lives, and how a function signature says so.</p>"
      }
    })
    return { course, welcome, moves, lifetimes }
  } finally {
    await admin.dispose()
  }
}

/** 16 s of H.264, the examples' test video (examples/test/fixtures/README.md). */
export const demoVideo = () =>
  new File([readFileSync(join(import.meta.dirname, "../test/fixtures/lecture.mp4"))], "lecture.mp4", { type: "video/mp4" })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const buyer = UserId.make("learner-1")
  let demo: { readonly url: string } | undefined
  await runExample("Learner page example", async (port) => {
    const example = await start(port, process.env.JWT_SECRET || undefined)
    try {
      const { course } = await seedDemoCourse(example, demoVideo())
      const admin = createClient({ baseUrl: example.url, adminToken: example.adminToken })
      await admin.purchases.grant({ params: { id: course.id, user_id: buyer } }).finally(() => admin.dispose())
      demo = { url: `${example.url}/?course=${course.slug}` }
      return example
    } catch (cause) {
      await example.close()
      throw cause
    }
  }, 3007)
  console.log(`The demo course: ${demo!.url}`)
  console.log(`Sign in as ${buyer} (who bought it) or any other user id (who did not): "Mint a demo token" on the page` +
    (process.env.JWT_SECRET ? `, or npm run -s viewer-token -- ${buyer}` : ""))
}
