/**
 * A DOM for the tests of a file that imports this (first): jsdom's `window` and
 * `document` as globals from the import on (describe blocks may build editors), removed
 * after the file's tests. Tiptap and ProseMirror read them to parse and write HTML. (The
 * `studio` project runs in node: under `@vitest-environment jsdom`, the workspace packages
 * would resolve to their builds rather than their sources.)
 */
import { JSDOM } from "jsdom"
import { afterAll } from "vitest"

const { window } = new JSDOM("<!doctype html><html><body></body></html>")
Object.assign(globalThis, { window, document: window.document })

afterAll(() => {
  window.close()
  Reflect.deleteProperty(globalThis, "window")
  Reflect.deleteProperty(globalThis, "document")
})
