/**
 * The security headers of every Studio response: a strict Content-Security-Policy
 * (scripts and styles from the Studio's own origin only — no inline script, no inline
 * style but React Aria's two by their hashes, no `eval` —, images and media also from the
 * store, requests also to the store's upload origin, frames only of the video players
 * lessons may embed), `nosniff` and a same-origin referrer policy.
 *
 * @since 0.1.0
 */
import type { HtmlAllowList } from "@coursekit/core"
import { createHash } from "node:crypto"
import type { StoreOriginList } from "./StoreOrigins.ts"

/**
 * The `<style>` elements React Aria (the Studio's components) adds to the page itself, by
 * their exact text: `usePress`'s, on the first pressable element of every page (pressable
 * elements pan and pinch-zoom but take no double-tap zoom), and `usePreventScroll`'s, in
 * mobile WebKit while a dialog is open. The policy admits each by its SHA-256 and nothing
 * else inline. `packages/studio/test/reactAriaStyles.test.ts` runs the installed React
 * Aria and fails when it writes other text (an upgrade), as the browser suites do on the
 * policy violation.
 *
 * Why hashes: they admit these bytes and nothing else, from any React Aria code path,
 * with the page's HTML static. A same-origin `<link id="react-aria-pressable-style">`
 * that satisfies `usePress`'s existence check (with the rule in our stylesheet) leans on
 * that check and cannot stop `usePreventScroll`'s, which has none; a per-response nonce
 * (React Aria reads `<meta name="csp-nonce">`) would make every page response unique,
 * put the nonce where any script reads it, and admit any style written with it.
 */
export const reactAriaStyles: ReadonlyArray<string> = [
  "@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}",
  "@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}"
]

/** `text`'s CSP hash source: `'sha256-<base64 of its UTF-8 bytes' SHA-256>'`. */
export const hashSource = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const styleHashes = reactAriaStyles.map((text) => ` ${hashSource(text)}`).join("")

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
    // No 'unsafe-inline': styles set through the DOM's style objects still apply; `style` attributes in markup do not,
    // nor any <style> element but React Aria's (`reactAriaStyles`: hashes never admit attributes).
    `style-src 'self'${styleHashes}`,
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
