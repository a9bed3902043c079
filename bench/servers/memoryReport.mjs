/**
 * Preloaded by `bench/memory.ts`'s workload part through `NODE_OPTIONS=--import=…`: on
 * SIGUSR2, the server process writes its `process.memoryUsage()` and the size of V8's young generation to
 * `$MEMORY_REPORT_DIR/<pid>.json`, so the bench can split its RSS into V8 heap and the
 * rest without an endpoint in the server. Only the server's own process listens (npm
 * and the start script's other processes load this too, through the same variable).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { getHeapSpaceStatistics } from "node:v8"

const dir = process.env.MEMORY_REPORT_DIR
if (dir !== undefined && /packages\/server\/(src|dist)\/main\./.test(process.argv[1] ?? "")) {
  process.on("SIGUSR2", () => {
    const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ ...process.memoryUsage(), newSpace: newSpace?.space_size ?? 0 }))
  })
}
