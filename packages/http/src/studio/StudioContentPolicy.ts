/**
 * The security headers of every Studio response: a strict Content-Security-Policy
 * (scripts and styles from the Studio's own origin only — no inline script or style, no
 * `eval` —, images and media also from the store, requests also to the store's upload
 * origin, frames only of the video players lessons may embed), `nosniff` and a
 * same-origin referrer policy.
 *
 * @since 0.1.0
 */
import type { HtmlAllowList } from "@coursekit/core"
import type { StoreOriginList } from "./StoreOrigins.ts"

/** What the policy lets the page reach beyond its own origin. */
export interface StudioSources extends StoreOriginList {
  /** Origins of the video players the page may frame. */
  readonly frames: ReadonlyArray<string>
}

/** `url`'s origin (`https://host[:port]`), which cannot carry a `;` or a space into the header. */
const originOf = (url: string): string => new URL(url).origin

const listed = (origins: ReadonlyArray<string>) => [...new Set(origins.map(originOf))].map((origin) => ` ${origin}`).join("")

/**
 * The `https://` origins of the players `allowList` lets lessons embed: every host of
 * each provider and the host it rewrites to (YouTube's `www.youtube-nocookie.com`), so
 * an embed shows in the editor both as pasted and as sanitized.
 */
export const videoPlayerOrigins = (allowList: HtmlAllowList): ReadonlyArray<string> => [
  ...new Set(
    Object.values(allowList.embeds).flatMap((provider) => [
      ...provider.hosts,
      ...(provider.rewriteHost === undefined ? [] : [provider.rewriteHost])
    ]).map((host) => originOf(`https://${host}`))
  )
]

/** The Content-Security-Policy for `sources`. */
export const contentSecurityPolicy = (sources: StudioSources): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    // No 'unsafe-inline': styles set through the DOM's style objects still apply; `style` attributes in markup do not.
    "style-src 'self'",
    `img-src 'self' data: blob:${listed(sources.files)}`,
    `media-src 'self' blob:${listed(sources.files)}`,
    `connect-src 'self'${listed(sources.uploads)}`,
    `frame-src${sources.frames.length === 0 ? " 'none'" : listed(sources.frames)}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'"
  ].join("; ")

/** The headers every Studio response carries, with `policy` as its Content-Security-Policy. */
export const studioSecurityHeaders = (policy: string): Readonly<Record<string, string>> => ({
  "content-security-policy": policy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin"
})
