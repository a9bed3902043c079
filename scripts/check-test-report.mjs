// Reads Vitest's JSON report (COURSEKIT_TEST_REPORT) and fails when any test was skipped
// or left todo, when a required suite ran no test, or when nothing ran at all. Prints
// the plain closing line "tests: N passed, N failed, N skipped".
import { readFileSync } from "node:fs"

const [reportPath, ...requiredSuites] = process.argv.slice(2)
const report = JSON.parse(readFileSync(reportPath, "utf8"))
const results = report.testResults.flatMap((file) => file.assertionResults.map((test) => ({ file: file.name, ...test })))
const count = (status) => results.filter((test) => test.status === status).length
const passed = count("passed")
const failed = count("failed")
const skipped = results.length - passed - failed
const problems = []
if (results.length === 0) problems.push("no test ran")
for (const test of results.filter((test) => test.status !== "passed" && test.status !== "failed")) {
  problems.push(`not run (${test.status}): ${test.fullName}`)
}
// Each file of a required kind must pass at least one test of its own.
for (const suite of requiredSuites) {
  const files = report.testResults.filter((file) => file.name.endsWith(suite))
  if (files.length === 0) problems.push(`no ${suite} file ran`)
  for (const file of files) {
    if (!file.assertionResults.some((test) => test.status === "passed")) {
      problems.push(`required suite ${file.name} ran no passing test`)
    }
  }
}
for (const problem of problems) console.error(`check-test-report: ${problem}`)
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(problems.length > 0 || failed > 0 || !report.success ? 1 : 0)
