/**
 * One scratch directory for the whole test run (PGlite data, server data directories),
 * removed when the run ends, so no run leaves databases behind in the system temp dir.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup() {
  const root = mkdtempSync(join(tmpdir(), "coursekit-test-"))
  process.env.COURSEKIT_TEST_TMP = root
  return () => rmSync(root, { recursive: true, force: true })
}
