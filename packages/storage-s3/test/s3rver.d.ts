// The part of s3rver 3.7 (which ships no types) that the tests use.
declare module "s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  interface S3rverOptions {
    readonly directory?: string
    readonly silent?: boolean
    readonly resetOnClose?: boolean
    readonly allowMismatchedSignatures?: boolean
    readonly vhostBuckets?: boolean
    readonly configureBuckets?: ReadonlyArray<{ readonly name: string; readonly configs?: ReadonlyArray<string | Buffer> }>
  }

  export default class S3rver {
    constructor(options?: S3rverOptions)
    /** Creates the `configureBuckets` buckets. */
    configureBuckets(): Promise<void>
    /** The request listener, for `http.createServer`. */
    getMiddleware(): (request: IncomingMessage, response: ServerResponse) => void
    readonly logger: { close(): void }
  }
}
