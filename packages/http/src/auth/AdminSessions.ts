/**
 * Admin sessions of the standalone server, for the Studio: an author pastes an admin
 * token once (`POST /admin/session`), and the browser holds an HttpOnly, SameSite=Strict
 * cookie from then on, until sign-out (`DELETE /admin/session`) or 12 hours without use.
 * Sessions live in the `AdminSessionRepo` (PostgreSQL or PGlite: every instance knows
 * them, a restart keeps them, a sign-out counts everywhere at once); the cookie is signed
 * with the session secret, so a forged one costs no database read.
 *
 * {@link AdminSessions.layer} also provides the `AdminAccess` that admits a request by
 * its bearer token or, without `Authorization`, by its session cookie; a write (any
 * method but GET, HEAD, OPTIONS) admitted by the cookie must carry the server's own
 * `Origin` (403 otherwise), since a browser sends the cookie with requests other sites
 * make it send. Under a host's login there is no such service: the session endpoints
 * answer that the host's login decides (`SessionHandlers`).
 *
 * @since 0.3.0
 */
import { AdminSessionRepo, type AdminSessionWindow } from "@coursekit/core"
import { Context, Data, Duration, Effect, Exit, Layer, Redacted } from "effect"
import { HttpEffect, HttpServerResponse, type HttpServerRequest } from "effect/http"
import { type AdminSession, CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"
import { Forbidden, type ServiceUnavailable, Unauthorized } from "../problems/Problems.ts"
import { AdminAccess, type AdminRefusals } from "./AdminAccess.ts"
import { adminTokenRefusals, AdminTokens, configuredTokens } from "./AdminTokens.ts"
import { cookieName, cookieOf, keyOf, newSession, principalOf, verifiedId } from "./SessionCookie.ts"

/**
 * A session lives 12 hours after its last use (by the store's clock); a use is written
 * down at most once a minute, so a session may end up to a minute before 12 hours after
 * its very last request.
 */
export const sessionWindow: AdminSessionWindow = { idle: Duration.hours(12), refreshAfter: Duration.minutes(1) }

/** The least length of a session secret, as of the HS256 secret of viewer tokens. */
export const minSessionSecretLength = 32

/** A session secret too short to sign with. */
export class SessionSecretTooShort extends Data.TaggedError("SessionSecretTooShort")<{ readonly length: number }> {
  override get message(): string {
    return `The session secret has ${this.length} characters; it needs at least ${minSessionSecretLength}`
  }
}

/** Options of {@link AdminSessions.layer}. */
export interface AdminSessionsOptions {
  /** The admin tokens (`ADMIN_TOKENS` entries: `name=token` or a bare token), as for `AdminTokens.layer`. */
  readonly tokens: ReadonlyArray<Redacted.Redacted<string>>
  /** The key that signs cookies (`SESSION_SECRET`): at least {@link minSessionSecretLength} characters, the same on every instance. */
  readonly secret: Redacted.Redacted<string>
  /**
   * The server's public URL (`PUBLIC_URL`), read on every use: its origin is the one a
   * cookie's writes must come from, its path the cookie's `Path`, and `https` makes the
   * cookie `Secure`.
   */
  readonly publicUrl: () => string
  /**
   * Also take the request's own `Host` as the server's origin: for a server that was not
   * told its public URL (`PUBLIC_URL` unset, derived from the port), which cannot know
   * whether browsers reach it as `localhost` or `127.0.0.1`. A browser sets `Origin`
   * itself, so another site's page still cannot pass; set `PUBLIC_URL` behind a proxy
   * that rewrites `Host`.
   */
  readonly originFromHost?: boolean | undefined
}

const signIn = CoursekitApi.groups.session.endpoints.signIn

/** How refusals read where sessions are: a request with the cookie and no `Authorization` is told its session is over. */
export const adminSessionRefusals: AdminRefusals = {
  unauthorized: (bearer, request) =>
    request.headers.authorization === undefined && cookieOf(request) !== undefined
      ? `The session is not valid or has ended (signed out, or idle for 12 hours): sign in again with ${signIn.method} ` +
        `${signIn.path}, or send Authorization: Bearer <admin token>.`
      : adminTokenRefusals.unauthorized(bearer, request),
  forbidden: adminTokenRefusals.forbidden
}

/** Methods that change nothing: a cookie admits them from anywhere, since no other site can read their answer. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/** What the public URL says of the cookie: where writes must come from, its path, whether it is `Secure`. */
interface Site {
  readonly origin: string
  readonly path: string
  readonly secure: boolean
}

const siteOf = (publicUrl: string): Site => {
  const url = new URL(publicUrl)
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, "") || "/", secure: url.protocol === "https:" }
}

const hasAuthorization = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers.authorization !== undefined && request.headers.authorization !== ""

/**
 * Signs authors in and out of the Studio. `signIn` checks an admin token (401 when it is
 * none; 403 when the request comes from another site's page) and sets the session cookie;
 * `signOut` ends the session the cookie names, for every instance, and clears the cookie
 * (403 for a request with the cookie from anywhere but the server's own pages). Both set
 * the cookie on the response being built.
 */
export class AdminSessions extends Context.Service<AdminSessions, {
  signIn(
    request: HttpServerRequest.HttpServerRequest,
    token: Redacted.Redacted<string>
  ): Effect.Effect<typeof AdminSession.Type, Unauthorized | Forbidden | ServiceUnavailable, HttpServerRequest.HttpServerRequest>
  signOut(request: HttpServerRequest.HttpServerRequest): Effect.Effect<void, Forbidden | ServiceUnavailable, HttpServerRequest.HttpServerRequest>
}>()("@coursekit/http/AdminSessions") {
  /**
   * Sessions over the `AdminSessionRepo` in context, and the `AdminAccess` that admits a
   * request by its bearer token (as `AdminTokens.layer`) or by its session cookie (when
   * it sends no `Authorization`); `AdminTokens` too. Fails when the secret is too short.
   */
  static readonly layer = (
    options: AdminSessionsOptions
  ): Layer.Layer<AdminSessions | AdminAccess | AdminTokens, SessionSecretTooShort, AdminSessionRepo> =>
    Layer.effectContext(Effect.gen(function*() {
      const { secret } = options
      const length = Redacted.value(secret).length
      if (length < minSessionSecretLength) return yield* new SessionSecretTooShort({ length })
      const repo = yield* AdminSessionRepo
      const tokens = AdminTokens.make(options.tokens)
      // Who each configured token's sessions write as; a token taken out names no one.
      const names = new Map(configuredTokens(options.tokens).map(({ name, token }) => [principalOf(secret, token), name]))
      let site: { readonly url: string; readonly site: Site } | undefined
      const currentSite = () => {
        const url = options.publicUrl()
        if (site?.url !== url) site = { url, site: siteOf(url) }
        return site.site
      }
      const cookieAttributes = () => {
        const { path, secure } = currentSite()
        return { path, httpOnly: true, sameSite: "strict", secure } as const
      }
      const fromOwnOrigin = (request: HttpServerRequest.HttpServerRequest) => {
        const origin = request.headers.origin
        if (origin === undefined) return false
        if (origin === currentSite().origin) return true
        // The page's origin as a browser writes it: the public URL's scheme and the request's own host.
        const host = request.headers.host
        return options.originFromHost === true && host !== undefined && origin === `${new URL(currentSite().origin).protocol}//${host.toLowerCase()}`
      }
      const foreignOrigin = (request: HttpServerRequest.HttpServerRequest, what: string) =>
        new Forbidden({
          detail: `${what} must come from ${currentSite().origin}, this server's own pages (the Origin header); this ` +
            `request ${request.headers.origin === undefined ? "has no Origin" : `comes from ${request.headers.origin}`}.`
        })

      // The author of the session the request's cookie names, asked once per request:
      // the admin check reads it twice (admitted? then as whom?).
      const known = new WeakMap<HttpServerRequest.HttpServerRequest, Exit.Exit<string | undefined, ServiceUnavailable>>()
      const sessionAuthorOf = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string | undefined, ServiceUnavailable> =>
        Effect.suspend(() => {
          const outcome = known.get(request)
          if (outcome !== undefined) return outcome
          const value = cookieOf(request)
          const id = value === undefined ? undefined : verifiedId(secret, value)
          // A cookie this server did not sign costs no database read.
          if (id === undefined) return Effect.succeed(undefined)
          return problems(repo.use(keyOf(id), sessionWindow)).pipe(
            Effect.map((principal) => principal === undefined ? undefined : names.get(principal)),
            Effect.onExit((exit) => Effect.sync(() => known.set(request, exit)))
          )
        })

      const access = AdminAccess.of({
        isAdmin: (request, bearer) => {
          // Authorization, when sent, alone decides: a wrong token is not made good by a cookie.
          if (hasAuthorization(request)) return Effect.succeed(Redacted.value(bearer) !== "" && tokens.isAdmin(bearer))
          if (cookieOf(request) === undefined) return Effect.succeed(false)
          if (!safeMethods.has(request.method) && !fromOwnOrigin(request)) {
            return Effect.fail(foreignOrigin(request, "A write signed in by the session cookie"))
          }
          return Effect.map(sessionAuthorOf(request), (author) => author !== undefined)
        },
        authorOf: (request, bearer) => hasAuthorization(request) ? Effect.succeed(tokens.authorOf(bearer)) : sessionAuthorOf(request),
        refusals: adminSessionRefusals,
        vary: ["cookie"]
      })

      const sessions = AdminSessions.of({
        signIn: Effect.fn("AdminSessions.signIn")(function*(request, token) {
          // A foreign page must not sign the browser in to a session of its choosing.
          if (request.headers.origin !== undefined && !fromOwnOrigin(request)) return yield* foreignOrigin(request, "A sign-in")
          const author = tokens.authorOf(token)
          if (author === undefined) return yield* new Unauthorized({ detail: "The token is not a valid admin token." })
          const session = newSession(secret)
          yield* problems(repo.create(keyOf(session.id), principalOf(secret, Redacted.value(token)), sessionWindow.idle))
          const attributes = cookieAttributes()
          yield* HttpEffect.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.setCookieUnsafe(response, cookieName, session.value, attributes))
          )
          return { author }
        }),
        signOut: Effect.fn("AdminSessions.signOut")(function*(request) {
          const value = cookieOf(request)
          if (value !== undefined) {
            if (!fromOwnOrigin(request)) return yield* foreignOrigin(request, "A sign-out")
            const id = verifiedId(secret, value)
            if (id !== undefined) yield* problems(repo.remove(keyOf(id)))
          }
          const attributes = cookieAttributes()
          yield* HttpEffect.appendPreResponseHandler((_request, response) =>
            Effect.succeed(HttpServerResponse.expireCookieUnsafe(response, cookieName, attributes))
          )
        })
      })

      return Context.make(AdminSessions, sessions).pipe(Context.add(AdminAccess, access), Context.add(AdminTokens, tokens))
    }))
}
