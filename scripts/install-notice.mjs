// npm ci's one line on a Node older than the scripts need (see scripts/node24.sh).
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`coursekit: this npm runs on Node ${process.version}; npm start and npm test fetch Node 24 into .toolchain/ on first use (scripts/node24.sh).\n`)
}
