/**
 * The session cookie in the OpenAPI document: the `Set-Cookie` of the session endpoints,
 * which their handlers set themselves (a declared header would have the typed client
 * decode it, and browsers never show `Set-Cookie` to scripts), and the cookie as a
 * security scheme, the alternative to the bearer token on every admin endpoint. Plain
 * data and functions: the contract imports it, and it imports nothing.
 *
 * @since 0.3.0
 */

/** The session cookie's name. */
export const sessionCookieName = "coursekit_session"

const setCookieHeaders = {
  set: {
    description: `${sessionCookieName}=<session>; Path=<PUBLIC_URL's path, or />; HttpOnly; SameSite=Strict, and Secure ` +
      "when PUBLIC_URL is https. No Max-Age: the server ends the session after 12 hours without use.",
    schema: { type: "string" }
  },
  clear: {
    description: `${sessionCookieName}=; Max-Age=0; Expires in 1970, with the same Path and attributes: the browser drops the cookie.`,
    schema: { type: "string" }
  }
} as const

/** An `OpenApi.Transform` of a session endpoint: the `Set-Cookie` its success answers with. */
export const describeSessionCookie = (what: "set" | "clear") => (operation: Record<string, any>): Record<string, any> => {
  const responses = { ...operation.responses }
  for (const status of ["200", "204"]) {
    const success = responses[status]
    if (success !== undefined) responses[status] = { ...success, headers: { ...success.headers, "Set-Cookie": setCookieHeaders[what] } }
  }
  return { ...operation, responses }
}

const sessionScheme = {
  type: "apiKey",
  in: "cookie",
  name: sessionCookieName,
  description: "The standalone server's session of a signed-in browser (POST /admin/session), for requests without " +
    "Authorization. A write (POST, PUT, PATCH, DELETE) it admits must carry the server's own Origin, else 403."
}

/**
 * An `OpenApi.Transform` of the whole document: the cookie as the `adminSession` scheme,
 * an alternative to `adminToken` wherever that is required.
 */
export const describeSessionSecurity = (spec: Record<string, any>): Record<string, any> => {
  const paths: Record<string, Record<string, any>> = {}
  for (const [path, operations] of Object.entries(spec.paths ?? {}) as Array<[string, Record<string, any>]>) {
    paths[path] = Object.fromEntries(Object.entries(operations).map(([method, operation]) => {
      const security: ReadonlyArray<Record<string, unknown>> | undefined = operation?.security
      if (security === undefined || !security.some((requirement) => "adminToken" in requirement)) return [method, operation]
      return [method, { ...operation, security: [...security, { adminSession: [] }] }]
    }))
  }
  const components = spec.components ?? {}
  return {
    ...spec,
    paths,
    components: { ...components, securitySchemes: { ...components.securitySchemes, adminSession: sessionScheme } }
  }
}
