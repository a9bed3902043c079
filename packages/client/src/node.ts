/**
 * Node-only helpers of the client (`@coursekit/client/node`), kept out of the main entry
 * so that browser bundles never see `node:fs`.
 *
 * @since 0.1.0
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import type { ResumeEntry, ResumeStore } from "./MultipartUpload.ts"

/**
 * A {@link ResumeStore} in a JSON file: a script that crashed or was stopped resumes its
 * multipart uploads when run again. Writes go one at a time, through a temporary file
 * renamed over the old one, so a crash never leaves half a file.
 */
export const fileResumeStore = (path: string): ResumeStore => {
  let queue: Promise<unknown> = Promise.resolve()
  const load = async (): Promise<Record<string, ResumeEntry>> => {
    try {
      return JSON.parse(await readFile(path, "utf8")) as Record<string, ResumeEntry>
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return {}
      throw error
    }
  }
  const update = (change: (entries: Record<string, ResumeEntry>) => void) => {
    const next = queue.then(async () => {
      const entries = await load()
      change(entries)
      await mkdir(dirname(path), { recursive: true })
      const temporary = `${path}.${process.pid}.tmp`
      await writeFile(temporary, JSON.stringify(entries, null, 2))
      await rename(temporary, path)
    })
    queue = next.catch(() => undefined)
    return next
  }
  return {
    get: async (key) => {
      await queue
      return (await load())[key]
    },
    set: (key, value) => update((entries) => void (entries[key] = value)),
    delete: (key, uploadId) =>
      update((entries) => {
        if (uploadId === undefined || entries[key]?.upload_id === uploadId) delete entries[key]
      })
  }
}
