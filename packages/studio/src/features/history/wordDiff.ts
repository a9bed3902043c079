/**
 * The differences between two texts, word by word: what the two sides share, what only
 * the first has and what only the second has, in order. Used to mark both versions side
 * by side (a conflict, a revision beside the current text). A longest common subsequence
 * over words and the spaces between them; texts too long for the quadratic table are
 * compared by their common start and end only, the middle marked as changed whole.
 */

export type DiffPart =
  | { readonly _tag: "same"; readonly text: string }
  | { readonly _tag: "removed"; readonly text: string }
  | { readonly _tag: "added"; readonly text: string }

/** Words and the runs of white space between them. */
const tokensOf = (text: string): ReadonlyArray<string> => text.match(/\s+|[^\s]+/g) ?? []

/** Above this many cells the table is not built (about 16 MB of counts). */
const maxCells = 4_000_000

const push = (parts: Array<DiffPart>, tag: DiffPart["_tag"], text: string) => {
  if (text === "") return
  const last = parts.at(-1)
  if (last !== undefined && last._tag === tag) parts[parts.length - 1] = { _tag: tag, text: last.text + text }
  else parts.push({ _tag: tag, text })
}

export const wordDiff = (before: string, after: string): ReadonlyArray<DiffPart> => {
  const a = tokensOf(before)
  const b = tokensOf(after)
  // The common start and end need no table.
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const middleA = a.slice(start, a.length - end)
  const middleB = b.slice(start, b.length - end)
  const parts: Array<DiffPart> = []
  push(parts, "same", a.slice(0, start).join(""))
  if (middleA.length * middleB.length > maxCells) {
    push(parts, "removed", middleA.join(""))
    push(parts, "added", middleB.join(""))
  } else {
    // lengths[i][j]: the longest common subsequence of middleA[i..] and middleB[j..].
    const width = middleB.length + 1
    const lengths = new Uint32Array((middleA.length + 1) * width)
    for (let i = middleA.length - 1; i >= 0; i--) {
      for (let j = middleB.length - 1; j >= 0; j--) {
        lengths[i * width + j] = middleA[i] === middleB[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < middleA.length || j < middleB.length) {
      if (i < middleA.length && j < middleB.length && middleA[i] === middleB[j]) {
        push(parts, "same", middleA[i]!)
        i++
        j++
      } else if (j < middleB.length && (i === middleA.length || lengths[i * width + j + 1]! >= lengths[(i + 1) * width + j]!)) {
        push(parts, "added", middleB[j]!)
        j++
      } else {
        push(parts, "removed", middleA[i]!)
        i++
      }
    }
  }
  push(parts, "same", a.slice(a.length - end).join(""))
  return parts
}

/** The text an HTML body shows, blocks on lines of their own: what a diff of bodies compares. */
export const textOfHtml = (html: string): string => {
  const document = new DOMParser().parseFromString(html, "text/html")
  const lines: Array<string> = []
  const blocks = "P,H1,H2,H3,H4,H5,H6,LI,DT,DD,TR,CAPTION,SUMMARY,FIGCAPTION,PRE,BLOCKQUOTE"
  const walk = (node: Node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE && blocks.split(",").includes((child as Element).tagName)) {
        lines.push((child.textContent ?? "").replace(/\s+/g, " ").trim())
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        walk(child)
      } else if (child.nodeType === Node.TEXT_NODE && (child.textContent ?? "").trim() !== "") {
        lines.push((child.textContent ?? "").replace(/\s+/g, " ").trim())
      }
    }
  }
  walk(document.body)
  return lines.filter((line) => line !== "").join("\n")
}
