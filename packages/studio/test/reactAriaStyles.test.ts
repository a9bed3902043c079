// @vitest-environment jsdom
/**
 * The inline styles the Studio's policy admits by their hashes (`reactAriaStyles`) are
 * exactly those the installed React Aria writes: its components run here in jsdom, as the
 * Studio uses them (a Button, a modal Dialog on an iPhone), and each `<style>` they add to
 * the page's head must be one of the texts, byte for byte. An upgrade that changes a text,
 * or adds a style, fails here before authors meet a policy violation.
 */
import { createHash } from "node:crypto"
import { act, createElement } from "react"
import { createRoot } from "react-dom/client"
import { Button, Dialog, Modal } from "react-aria-components"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { hashSource, reactAriaStyles } from "../../http/src/studio/StudioContentPolicy.ts"

/** The text of each `<style>` element in the head, in the order React Aria prepends them (newest first). */
const headStyles = () => [...document.head.querySelectorAll("style")].map((style) => style.textContent)

/** Renders `element`, lets its effects run, and unmounts it; answers the head's styles meanwhile. */
const stylesWhileShown = async (element: ReturnType<typeof createElement>) => {
  const container = document.body.appendChild(document.createElement("div"))
  const root = createRoot(container)
  await act(async () => root.render(element))
  const styles = headStyles()
  await act(async () => root.unmount())
  container.remove()
  return styles
}

const navigatorAs = (platform: string, userAgent: string) => {
  Object.defineProperty(window.navigator, "platform", { value: platform, configurable: true })
  Object.defineProperty(window.navigator, "userAgent", { value: userAgent, configurable: true })
}

describe("React Aria's inline styles", () => {
  beforeAll(() => {
    // React Aria writes no style under NODE_ENV=test (vitest's); the browser runs the production code path.
    process.env.NODE_ENV = "production"
    Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: true })
    // jsdom has no CSS namespace; React Aria escapes one fixed name with it ("csp-nonce", looking for a nonce).
    Object.assign(globalThis, { CSS: { escape: (text: string) => text.replace(/[^\w-]/g, (character) => `\\${character}`) } })
  })
  afterEach(() => {
    process.env.NODE_ENV = "test"
    for (const style of document.head.querySelectorAll("style")) style.remove()
  })

  it("a pressable element's touch-action rule is the first text, as usePress writes it", async () => {
    process.env.NODE_ENV = "production"
    navigatorAs("Linux x86_64", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36")
    expect(await stylesWhileShown(createElement(Button, null, "Sign in"))).toEqual([reactAriaStyles[0]])
  })

  it("a modal dialog on an iPhone adds the overscroll rule, the second text, as usePreventScroll writes it", async () => {
    process.env.NODE_ENV = "production"
    navigatorAs("iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1")
    const dialog = createElement(Modal, { isOpen: true }, createElement(Dialog, { "aria-label": "History" }, "Revisions"))
    const styles = await stylesWhileShown(dialog)
    expect(styles).toContain(reactAriaStyles[1])
    expect(styles.every((text) => reactAriaStyles.includes(text!)), JSON.stringify(styles)).toBe(true)
  })

  it("each is admitted by its SHA-256 of the text's UTF-8 bytes, as the policy lists it", () => {
    // The hash chromium names when it refuses usePress's style, from a run without it in the policy.
    expect(hashSource(reactAriaStyles[0]!)).toBe("'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='")
    for (const text of reactAriaStyles) {
      expect(hashSource(text)).toBe(`'sha256-${createHash("sha256").update(new TextEncoder().encode(text)).digest("base64")}'`)
    }
  })
})
