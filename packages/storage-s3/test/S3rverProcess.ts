/**
 * The s3rver process the tests start (see `TestS3rver.ts`):
 * `node --openssl-legacy-provider S3rverProcess.ts <directory> <bucket> [--no-verify] [--list-page-size=<n>]`.
 * It serves s3rver on 127.0.0.1 (a free port) with SigV4 verified in front of it, the
 * bucket policy the storage-s3 README documents (anonymous reads of every key but those
 * under `private/`) and the multipart operations s3rver lacks (`S3rverMultipart.ts`,
 * signed requests only, as S3 allows them only to the bucket's credentials), prints
 * `{"port":…}` once listening, and exits when its stdin closes.
 *
 * Why a process of its own: s3rver 3.7 makes ListObjectsV2 continuation tokens with
 * DES, which OpenSSL 3 only offers through its legacy provider, so every truncated
 * listing is a 500 unless Node runs with `--openssl-legacy-provider`; and a test worker
 * cannot be given that flag from a test file.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import S3rver from "s3rver"
import * as S3rverMultipart from "./S3rverMultipart.ts"
import * as SigV4 from "./SigV4.ts"

const [directory, bucket, ...flags] = process.argv.slice(2)
if (directory === undefined || bucket === undefined) {
  throw new Error("usage: S3rverProcess.ts <directory> <bucket> [--no-verify] [--list-page-size=<n>]")
}
const verifySignatures = !flags.includes("--no-verify")
const listPageSize = Number(flags.find((flag) => flag.startsWith("--list-page-size="))?.split("=")[1] ?? "1000")

const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket }] })
await s3rver.configureBuckets()
const handle = s3rver.getMiddleware()
// s3rver's only account.
const secrets = new Map([["S3RVER", "S3RVER"]])
const multipart = S3rverMultipart.make({ directory, bucket, listPageSize, pass: handle })

/** A multipart upload operation (`?uploads`, `?uploadId`): S3 takes them only signed. */
const isMultipart = (url: string): boolean => /[?&](uploads|uploadId)(=|&|$)/.test(url)

/**
 * The documented bucket policy, which s3rver has no notion of (it serves every object
 * to anonymous reads): an anonymous GET or HEAD of a key under `private/` is denied.
 * Path-style addressing only, as the tests use: `/<bucket>/<key>`.
 */
const deniedByBucketPolicy = (method: string, url: string): boolean => {
  if (method !== "GET" && method !== "HEAD") return false
  const path = url.split("?")[0]!
  const prefix = `/${encodeURIComponent(bucket)}/`
  if (!path.startsWith(prefix)) return false
  try {
    return decodeURIComponent(path.slice(prefix.length)).startsWith("private/")
  } catch {
    return true
  }
}

const server = http.createServer((request, response) => {
  const method = request.method ?? "GET"
  const url = request.url ?? "/"
  const checked: SigV4.Verdict = verifySignatures
    ? SigV4.verify({ method, url, headers: request.headers }, secrets)
    : { ok: true, signed: SigV4.claimsSignature(url, request.headers) }
  const verdict: SigV4.Verdict = checked.ok && !checked.signed && (deniedByBucketPolicy(method, url) || isMultipart(url))
    ? { ok: false, code: "AccessDenied", message: "Access Denied" }
    : checked
  if (verdict.ok) {
    if (!multipart.handle(request, response)) handle(request, response)
    return
  }
  // Answer once the body is read, so the client sees the 403 rather than a reset.
  request.resume().on("end", () => {
    const body = request.method === "HEAD"
      ? ""
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${verdict.code}</Code><Message>${verdict.message}</Message></Error>`
    response.writeHead(403, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body) }).end(body)
  })
})

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`)
})

// The test's end of stdin closes when it stops the server, or when it dies.
process.stdin.on("end", () => {
  server.close(() => {
    s3rver.logger.close()
    process.exit(0)
  })
  server.closeAllConnections()
}).resume()
