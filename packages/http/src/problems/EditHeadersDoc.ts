/**
 * The OpenAPI description of the headers of versioned records, which handlers read and
 * set themselves (see `EditHeaders`) rather than through the endpoints' schemas, so the
 * typed client's calls and answers keep their shape: `If-Match` and `Coursekit-Autosave`
 * on writes, `ETag` on the answers of one record.
 *
 * @since 0.3.0
 */

/** Which of the headers an endpoint has, and the status of its success (default 200). */
export interface EditHeaders {
  readonly etag?: boolean
  readonly ifMatch?: boolean
  readonly autosave?: boolean
  readonly status?: string
}

const ifMatchParameter = {
  name: "If-Match",
  in: "header",
  required: false,
  description: "The ETag of the record as last read (its version, quoted: \"3\"), several separated by commas, or * " +
    "for any version. The record at another version is not written: 412, with current_version and current. Weak or " +
    "foreign tags never match. Malformed: 400. Required when the server sets REQUIRE_IF_MATCH (else 428).",
  schema: { type: "string" }
}

const autosaveParameter = {
  name: "Coursekit-Autosave",
  in: "header",
  required: false,
  description: "1: an autosave. Consecutive autosaves of one record by one author, with no other change between and " +
    "within 10 minutes of the first, keep one revision (the latest content). 0 or absent: an ordinary write. Else 400.",
  schema: { type: "string", enum: ["1", "0"] }
}

const etagHeader = {
  description: "Strong entity tag of the record's version (\"3\" for version 3): send it as If-Match with the next write.",
  schema: { type: "string" }
}

/** An `OpenApi.Transform` adding the headers `headers` names to an operation. */
export const describeEditHeaders = (headers: EditHeaders) => (operation: Record<string, any>): Record<string, any> => {
  const parameters = [
    ...(operation.parameters ?? []),
    ...(headers.ifMatch === true ? [ifMatchParameter] : []),
    ...(headers.autosave === true ? [autosaveParameter] : [])
  ]
  const status = headers.status ?? "200"
  const success = operation.responses?.[status]
  const responses = headers.etag === true && success !== undefined
    ? { ...operation.responses, [status]: { ...success, headers: { ...success.headers, ETag: etagHeader } } }
    : operation.responses
  return { ...operation, parameters, responses }
}
