/**
 * Coursekit Studio, the authoring app (`packages/studio`), served from its build under
 * `/studio/` — under the host's prefix when embedded (`studio` of the handlers' options).
 *
 * - `GET`/`HEAD /studio/` and `/studio/index.html`: the app's page, `Cache-Control: no-cache`.
 * - `/studio/assets/<file>`: Vite's content-hashed files, cached for a year, `immutable`.
 * - Any other file of the build (none today): served, `no-cache`, since its name does not change with it.
 * - Any other path whose last segment has no extension (`/studio/courses/12`): the app's
 *   own client-side routes, answered with its page. Under `assets/`, or with an
 *   extension: a 404 problem, so a missing script is never answered with HTML.
 * - `/studio`: 301 to `studio/` (relative, so right under any prefix).
 *
 * Files carry `ETag` and `Last-Modified` (`If-None-Match` answers 304) and the type of
 * their extension. A path segment that cannot name a file (empty, `.`, `..`, an encoded
 * `/` or `\`, a control character, a broken escape) is a 400 problem; nothing outside the
 * build is ever read and no directory is listed (`StudioBuild`). Another method is a 405
 * problem with `Allow: GET, HEAD`. Without a build (no `index.html`), every path is a
 * 503 problem saying to run `npm run build`. Every response carries the Studio's
 * Content-Security-Policy, `nosniff` and `Referrer-Policy: same-origin`
 * (`StudioContentPolicy`).
 *
 * The page's URLs are relative (Vite's `base: "./"`): served at a deeper client route,
 * it gets a `<base href>` back to the Studio's root (`../` per level), so its scripts
 * load from any depth, under any prefix or proxy, and `document.baseURI` is the Studio's
 * root URL. The files are public, as any web app's are; what the app shows comes from the
 * admin API, behind its own checks (the host's login when embedded).
 *
 * @since 0.1.0
 */
import { defaultAllowList, type HtmlAllowList } from "@coursekit/core"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { problem } from "../edge/EdgeMiddleware.ts"
import { matchesIfNoneMatch } from "../edge/CourseListCache.ts"
import { pathOf } from "../edge/RequestPath.ts"
import { StoreOrigins } from "./StoreOrigins.ts"
import { isFileName, StudioBuild, type StudioFile } from "./StudioBuild.ts"
import { contentSecurityPolicy, studioSecurityHeaders, videoPlayerOrigins } from "./StudioContentPolicy.ts"
import { contentTypeOf, extensionOf, htmlType } from "./internal/ContentTypes.ts"
import { withBase } from "./internal/PageBase.ts"

/** How a host serves the Studio (`studio` of `webHandler`, `nodeHandler` and the framework adapters). */
export interface StudioOptions {
  /** The Studio's build: the directory `npm run build` writes (`packages/studio/dist`), with `index.html` and `assets/`. */
  readonly dir: string
  /**
   * The allow-list of the host's HTML sanitizer: the video players it lets lessons
   * embed are the only frames the page may show. Default `defaultAllowList`.
   */
  readonly allowList?: HtmlAllowList | undefined
}

/** Where the Studio is served (under the mount prefix, if any). */
export const studioPath = "/studio"

/** Vite's content-hashed files: a new build names its files anew. */
const assetsFolder = "assets"
const immutable = "public, max-age=31536000, immutable"
const revalidate = "no-cache"

/** What follows `/studio/`: the decoded segments, and how many levels below the root it is (the `/`s). */
interface StudioTarget {
  readonly segments: ReadonlyArray<string>
  /** Whether it ends with `/`: a client route, never a file. */
  readonly directory: boolean
  readonly depth: number
}

/** `rest` (percent-encoded, after `/studio/`) read, or undefined when a segment cannot name a file. */
const targetOf = (rest: string): StudioTarget | undefined => {
  if (rest === "") return { segments: [], directory: true, depth: 0 }
  const raw = rest.split("/")
  const directory = raw.at(-1) === ""
  const segments: Array<string> = []
  for (const segment of directory ? raw.slice(0, -1) : raw) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return undefined
    }
    if (!isFileName(decoded)) return undefined
    segments.push(decoded)
  }
  return { segments, directory, depth: raw.length - 1 }
}

/** The strong validator of a file as read: its size and modification time. */
const etagOf = (file: StudioFile, variant = "") =>
  `"${file.size.toString(16)}-${file.lastModified.getTime().toString(16)}${variant}"`

const notBuilt = "Coursekit Studio is not built yet: run `npm run build`, then reload this page."

/** The route's answer to `request`, before the security headers. */
const answer = (build: StudioBuild["Service"], request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const path = pathOf(request.url)
    if (request.method !== "GET" && request.method !== "HEAD") {
      return HttpServerResponse.setHeader(
        problem(405, `${request.method} is not allowed on ${path}; it allows GET, HEAD.`),
        "allow",
        "GET, HEAD"
      )
    }
    if (path === studioPath) {
      // Relative, resolved against `…/studio`: right under any mount prefix, and behind a proxy that adds its own.
      return HttpServerResponse.redirect(`studio/${request.url.slice(path.length)}`, { status: 301 })
    }
    const target = targetOf(path.slice(studioPath.length + 1))
    if (target === undefined) {
      return problem(400, `${path} is not a path of the Studio: a segment is empty, \`.\` or \`..\`, or holds \`/\`, \`\\\`, a control character or a broken escape.`)
    }
    const index = yield* build.index
    if (Option.isNone(index)) return problem(503, notBuilt)
    const ifNoneMatch = request.headers["if-none-match"]
    const { depth, directory, segments } = target

    const page = () => {
      // From a client route's depth back to the Studio's root, so the page's relative URLs resolve there.
      const etag = etagOf(index.value, `-${depth}`)
      const headers = { etag, "last-modified": index.value.lastModified.toUTCString(), "cache-control": revalidate }
      if (matchesIfNoneMatch(ifNoneMatch, etag)) return HttpServerResponse.empty({ status: 304, headers })
      const html = withBase(index.value.html, depth === 0 ? "./" : "../".repeat(depth))
      return HttpServerResponse.text(html, { contentType: htmlType, headers })
    }

    if (segments.length === 0 || (segments.length === 1 && segments[0] === "index.html")) return page()
    const file = directory ? Option.none<StudioFile>() : yield* build.file(segments)
    if (Option.isNone(file)) {
      const name = segments.at(-1)!
      return segments[0] === assetsFolder || (!directory && extensionOf(name) !== undefined)
        ? problem(404, `The Studio has no file at ${path}.`)
        : page()
    }
    const etag = etagOf(file.value)
    const headers = {
      etag,
      "last-modified": file.value.lastModified.toUTCString(),
      "cache-control": segments[0] === assetsFolder ? immutable : revalidate
    }
    if (matchesIfNoneMatch(ifNoneMatch, etag)) return HttpServerResponse.empty({ status: 304, headers })
    // HEAD is routed here too; the server sends the headers and drops the body.
    return HttpServerResponse.stream(build.read(file.value), {
      headers,
      contentType: contentTypeOf(segments.at(-1)!),
      contentLength: file.value.size
    })
  })

/**
 * Adds the Studio's route (`/studio` and everything under it, every method) to the
 * `HttpRouter`, serving the build in `options.dir`. Its Content-Security-Policy names
 * the {@link StoreOrigins} provided beside it. `webHandler`, `nodeHandler` and the
 * framework adapters add it when given `studio`; with `layerNodeServer`, merge it beside
 * the routes.
 */
export const layer = (options: StudioOptions): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const build = yield* StudioBuild
    const storeOrigins = yield* StoreOrigins
    const frames = videoPlayerOrigins(options.allowList ?? defaultAllowList)
    // Every method: a 405 answered here carries the policy too.
    yield* router.add("*", `${studioPath}/*`, Effect.gen(function*() {
      const response = yield* answer(build, yield* HttpServerRequest.HttpServerRequest)
      return HttpServerResponse.setHeaders(response, studioSecurityHeaders(contentSecurityPolicy({ ...storeOrigins(), frames })))
    }))
  })).pipe(Layer.provide(StudioBuild.layer(options.dir)))
