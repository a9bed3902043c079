/**
 * Viewers from JSON Web Tokens (`Authorization: Bearer <JWT>`), verified with `jose`:
 * HS256 with a shared secret, or the asymmetric algorithms (RS256, ES256, …) with keys
 * from a JWKS URL, or both. `sub` is the user id; `exp` is required. A token that does
 * not verify is a 401; a key server that does not answer is a 503.
 *
 * A token that verified is remembered (the exact token, up to {@link verifiedTokenLimit}
 * of them) for at most {@link verifiedTokenTtl} and never past its `exp`: a learner's
 * player sends the same token every few seconds, and verifying it again cost more than
 * the rest of a progress write's answer. A remembered token is accepted only while its
 * `exp` and `nbf` still pass, by the same clock and tolerance as `jose`'s check.
 *
 * @since 0.1.0
 */
import { anonymousViewer, signedInViewer, UserId, type Viewer } from "@coursekit/core"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from "jose"
import { ServiceUnavailable, Unauthorized } from "../problems/Problems.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** Options of {@link layer}. At least one of `secret` and `jwksUrl`. */
export interface Options {
  /** Shared HS256 secret; at least 32 characters. */
  readonly secret?: Redacted.Redacted<string> | undefined
  /** A JSON Web Key Set (the identity provider's `jwks_uri`), for RS256, ES256 and the other asymmetric algorithms. */
  readonly jwksUrl?: string | undefined
  /** When set, the `iss` claim must equal it. */
  readonly issuer?: string | undefined
  /** When set, the `aud` claim must contain it. */
  readonly audience?: string | undefined
  /** Allowed clock skew for `exp`/`nbf`. Default 5 seconds. */
  readonly clockTolerance?: Duration.Input | undefined
  /** How long a JWKS request may take. Default 5 seconds. */
  readonly jwksTimeout?: Duration.Input | undefined
}

/** Shortest accepted HS256 secret: 256 bits of ASCII. */
export const minSecretLength = 32

const asymmetric = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"]

const decodeUserId = Schema.decodeUnknownOption(UserId)

/** How many verified tokens a resolver remembers; the oldest is forgotten first. */
export const verifiedTokenLimit = 10_000

/**
 * How long a verified token is remembered: short enough that a signing key withdrawn
 * from the JWKS stops being honoured about as soon as `jose`'s own key cache would
 * notice (it refetches after 10 minutes), long enough for a player's saves.
 */
export const verifiedTokenTtl: Duration.Duration = Duration.minutes(5)

/** What a verified token said that its later uses need: the viewer, and `exp` and `nbf` (seconds since the epoch). */
export interface VerifiedToken {
  readonly viewer: Viewer
  readonly exp: number
  readonly nbf: number | undefined
}

/**
 * The tokens a resolver verified: each taken again without verifying it for `ttlMillis`
 * after it was verified, while its `exp` and `nbf` pass at `nowMillis` with
 * `toleranceSeconds` (`jose`'s checks, by its clock: seconds, floored). At most `limit`
 * are kept; the oldest is forgotten first.
 */
export const verifiedTokens = (limit: number, ttlMillis: number, toleranceSeconds: number) => {
  // Insertion order is age: the first key is the oldest.
  const tokens = new Map<string, VerifiedToken & { readonly until: number }>()
  return {
    get(token: string, nowMillis: number): Viewer | undefined {
      const known = tokens.get(token)
      if (known === undefined) return undefined
      const now = Math.floor(nowMillis / 1000)
      if (nowMillis < known.until && known.exp > now - toleranceSeconds && (known.nbf === undefined || known.nbf <= now + toleranceSeconds)) {
        return known.viewer
      }
      // Expired here or there: `jose` decides again, and says why.
      tokens.delete(token)
      return undefined
    },
    set(token: string, verified: VerifiedToken, nowMillis: number): void {
      if (tokens.size >= limit) tokens.delete(tokens.keys().next().value!)
      tokens.set(token, { ...verified, until: nowMillis + ttlMillis })
    },
    get size() {
      return tokens.size
    }
  }
}

/** Why the options cannot be used. */
export class JwtOptionsInvalid extends Schema.TaggedError<JwtOptionsInvalid>()("JwtOptionsInvalid", {
  message: Schema.String
}) {}

const millis = (input: Duration.Input | undefined, fallback: Duration.Duration) =>
  Duration.toMillis(Option.getOrElse(input === undefined ? Option.none() : Duration.fromInput(input), () => fallback))

/** Token problems (401) apart from key-server problems (503). */
const classify = (error: unknown): Unauthorized | ServiceUnavailable => {
  if (error instanceof errors.JWTExpired) return new Unauthorized({ detail: "The viewer token has expired." })
  // The key server did not answer, answered an error, or sent no usable key set. (jose
  // raises the bare JOSEError for a non-200 answer; every token problem is a subclass.)
  if (
    error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError) ||
    error.constructor === errors.JOSEError
  ) {
    return new ServiceUnavailable({ detail: "The viewer token's signing keys could not be fetched; try again shortly." })
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new Unauthorized({ detail: `The viewer token's ${error.claim} claim is not accepted.` })
  }
  return new Unauthorized({ detail: "The viewer token is not valid." })
}

/** The resolver for `options`. */
export const make = (options: Options): Effect.Effect<ViewerResolver["Service"], JwtOptionsInvalid> =>
  Effect.gen(function*() {
    const secret = options.secret === undefined ? undefined : Redacted.value(options.secret)
    if (secret === undefined && options.jwksUrl === undefined) {
      return yield* new JwtOptionsInvalid({ message: "Set a secret, a JWKS URL, or both." })
    }
    if (secret !== undefined && secret.length < minSecretLength) {
      return yield* new JwtOptionsInvalid({ message: `The HS256 secret must be at least ${minSecretLength} characters.` })
    }
    if (options.jwksUrl !== undefined && !URL.canParse(options.jwksUrl)) {
      return yield* new JwtOptionsInvalid({ message: "The JWKS URL is not an absolute URL." })
    }
    // Imported once: handed the raw secret, jose imports it again for every token.
    const secretKey = secret === undefined ? undefined : yield* Effect.promise(() =>
      crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
    )
    // Cached, and fetched again (at most once per cool-down) when a token names an unknown key.
    const jwks = options.jwksUrl === undefined
      ? undefined
      : createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: millis(options.jwksTimeout, Duration.seconds(5)) })
    const getKey: JWTVerifyGetKey = (header, token) => {
      if (header.alg === "HS256" && secretKey !== undefined) return secretKey
      if (jwks !== undefined) return jwks(header, token)
      throw new errors.JOSEAlgNotAllowed(`"alg" (Algorithm) Header Parameter value not allowed`)
    }
    const verifyOptions = {
      algorithms: [...(secretKey === undefined ? [] : ["HS256"]), ...(jwks === undefined ? [] : asymmetric)],
      requiredClaims: ["sub", "exp"],
      clockTolerance: Math.round(millis(options.clockTolerance, Duration.seconds(5)) / 1000),
      ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
      ...(options.audience === undefined ? {} : { audience: options.audience })
    }

    const verified = verifiedTokens(verifiedTokenLimit, Duration.toMillis(verifiedTokenTtl), verifyOptions.clockTolerance)

    // Made once: a span made per request takes a stack trace per request.
    const inSpan = Effect.withSpan("JwtViewerResolver.resolve")
    return ViewerResolver.of({
      vary: ["authorization"],
      resolve: (request) => {
        const header = request.headers.authorization
        if (header === undefined || header === "") return Effect.succeed(anonymousViewer)
        const match = /^Bearer +([A-Za-z0-9_.~+/=-]+)$/i.exec(header.trim())
        if (match === null) return Effect.fail(new Unauthorized({ detail: "Authorization must be Bearer <viewer JWT>." }))
        const token = match[1]!
        // `jose`'s clock: the real one.
        const known = verified.get(token, Date.now())
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tryPromise({ try: () => jwtVerify(token, getKey, verifyOptions), catch: classify }).pipe(
          Effect.flatMap(({ payload }) =>
            Option.match(decodeUserId(payload.sub), {
              onNone: () => Effect.fail(new Unauthorized({ detail: "The viewer token's sub claim is not a user id." })),
              onSome: (id) => {
                const viewer = signedInViewer(id)
                // `exp` is a required claim: `jose` refused the token without one.
                verified.set(token, { viewer, exp: payload.exp!, nbf: payload.nbf }, Date.now())
                return Effect.succeed(viewer)
              }
            })
          ),
          inSpan
        )
      }
    })
  })

/** The resolver for `options`, as a layer. */
export const layer = (options: Options): Layer.Layer<ViewerResolver, JwtOptionsInvalid> => Layer.effect(ViewerResolver, make(options))
