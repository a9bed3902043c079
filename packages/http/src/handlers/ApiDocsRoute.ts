/**
 * `GET /docs`: the interactive API explorer (Scalar, as Effect's `HttpApiScalar` bundles
 * it), as a small page that loads Scalar's script from `/docs/scalar-<effect's version>.js`.
 * The script (3 MB) is a static asset the browser keeps for a year (`immutable`: its name
 * changes with the Effect release that bundles it), so opening the explorer again costs
 * the page and the API's description, not 3 MB. The script is read on the first request
 * for either, not at start: most servers never serve them (docs/benchmarks.md, "Memory").
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"

const require = createRequire(import.meta.url)
const effectPackage = require("effect/package.json") as { readonly version: string }

/**
 * Scalar's standalone script as the installed Effect bundles it. Effect keeps it in a
 * module its exports do not name, so it is imported by its file (a test fails should an
 * Effect release move it).
 */
const scalarScript = () =>
  Effect.promise(async () => {
    const root = dirname(require.resolve("effect/package.json"))
    const bundled = await import(pathToFileURL(join(root, "dist/http-api/internal/httpApiScalar.js")).href) as { readonly javascript: string }
    return bundled.javascript
  })

// As Effect's own page escapes them (`http-api/internal/html`).
const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeAttribute = (text: string) => escapeHtml(text).replace(/"/g, "&quot;").replace(/'/g, "&#39;")
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

/** The page: the API's description inline, Scalar's script by its cached address (relative, so a mount prefix holds). */
const pageOf = (spec: ReturnType<typeof OpenApi.fromApi>, scriptHref: string) => `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(spec.info.title)}</title>
    ${spec.info.description ? `<meta name="description" content="${escapeAttribute(spec.info.description)}" />` : ""}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="api-reference-container"></div>
    <script src="${escapeAttribute(scriptHref)}"></script>
    <script>
      window.Scalar.createApiReference(document.getElementById("api-reference-container"), {
        _integration: "html",
        content: ${scriptJson(spec)}
      })
    </script>
  </body>
</html>`

/** A year: the script's name changes whenever its content can. */
const immutable = "public, max-age=31536000, immutable"

/** The explorer of `api` at `path`, and Scalar's script beside it, each made on its first request and kept for the server's life. */
export const layer = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  path: `/${string}` = "/docs"
) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const scriptName = `scalar-${effectPackage.version}.js`
    // Relative to the page's own address (`…/docs`), so it resolves under a mount prefix too.
    const scriptHref = `${path.slice(path.lastIndexOf("/") + 1)}/${scriptName}`
    // Concurrent first requests wait for one build.
    const page = yield* Effect.cached(Effect.sync(() => HttpServerResponse.html(pageOf(OpenApi.fromApi(api), scriptHref))))
    const script = yield* Effect.cached(Effect.map(scalarScript(), (javascript) =>
      HttpServerResponse.text(javascript, {
        contentType: "text/javascript; charset=utf-8",
        headers: { "cache-control": immutable }
      })))
    yield* router.add("GET", path, page)
    yield* router.add("GET", `${path}/${scriptName}`, script)
  }))
