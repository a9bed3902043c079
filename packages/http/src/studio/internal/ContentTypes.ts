/** The `Content-Type` of a static file by its extension: the types a web app's build holds, text ones in UTF-8. */
const contentTypes: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  map: "application/json",
  webmanifest: "application/manifest+json",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  wasm: "application/wasm"
}

/** `name`'s extension, lower case; none for `name` or `.name`. */
export const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? undefined : name.slice(dot + 1).toLowerCase()
}

/** The type of a file by its extension; `application/octet-stream` (never sniffed) for any other. */
export const contentTypeOf = (name: string): string => contentTypes[extensionOf(name) ?? ""] ?? "application/octet-stream"

/** The type of HTML pages. */
export const htmlType = contentTypes.html!
