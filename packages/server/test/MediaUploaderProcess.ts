/**
 * The uploader the multipart resume tests run as a process of their own
 * (`MediaUploader.ts` starts it): a Node script that uploads one media file with
 * `@coursekit/client` as the client's README shows (a file-backed `File`, its
 * `lastModified` from the file, `fileResumeStore`), so a test can kill it with SIGKILL
 * and run it again.
 *
 * `node --conditions=@coursekit/source --import tsx MediaUploaderProcess.ts <baseUrl> <file> <statePath>`,
 * the admin token in `COURSEKIT_ADMIN_TOKEN`. It prints one JSON line per answered
 * request, `{"request":"POST /admin/media/multipart","status":201}` or, for a part PUT
 * to storage, `{"put":7,"status":200}`; then `{"media":{…}}`, or `{"error":…}` and exit 1.
 */
import { createClient } from "@coursekit/client"
import { fileResumeStore } from "@coursekit/client/node"
import { openAsBlob, statSync } from "node:fs"
import { basename } from "node:path"

const [baseUrl, path, statePath] = process.argv.slice(2)
if (baseUrl === undefined || path === undefined || statePath === undefined) {
  throw new Error("usage: MediaUploaderProcess.ts <baseUrl> <file> <statePath>")
}

// Written synchronously (stdout is a pipe), so a line is out before the next request starts.
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)

/** `fetch` that prints each request once answered: the API calls and the part PUTs alike go through it. */
const printing: typeof fetch = async (input, init) => {
  const method = init?.method ?? (input instanceof Request ? input.method : "GET")
  const url = new URL(input instanceof Request ? input.url : String(input))
  const response = await fetch(input, init)
  const partNumber = url.searchParams.get("partNumber")
  print(method === "PUT" && partNumber !== null
    ? { put: Number(partNumber), status: response.status }
    : { request: `${method} ${url.pathname}`, status: response.status })
  return response
}

const kit = createClient({ baseUrl, adminToken: process.env.COURSEKIT_ADMIN_TOKEN, fetch: printing })
try {
  const file = new File([await openAsBlob(path)], basename(path), { type: "video/mp4", lastModified: statSync(path).mtimeMs })
  print({ media: await kit.uploadMedia(file, { resumeStore: fileResumeStore(statePath) }) })
} catch (error) {
  print({ error: String(error), problem: (error as { problem?: unknown }).problem })
  process.exitCode = 1
} finally {
  await kit.dispose()
}
