#!/usr/bin/env node
// The package's command (`npx coursekit`): the built standalone server. A file of its own,
// not dist/main.js itself, so that npm links the command at install time, before a build
// in this repository has made dist/.
import { existsSync } from "node:fs"

const main = new URL("../dist/main.js", import.meta.url)
if (!existsSync(main)) {
  process.stderr.write("coursekit: the server is not built; run `npm run build` in the repository first.\n")
  process.exit(1)
}
await import(main.href)
