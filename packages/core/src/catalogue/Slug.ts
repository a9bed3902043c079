/**
 * Course slugs: URL-safe names derived from a title, and the words search sees, derived
 * from any text by the same transliteration.
 *
 * A slug is lower case ASCII letters and digits in words joined by single hyphens
 * (`^[a-z0-9]+(-[a-z0-9]+)*$`), at most {@link maxLength} characters. Diacritics are
 * removed, a few letters that Unicode does not decompose are transliterated (ß→ss, æ→ae,
 * œ→oe, ø→o, ł→l, đ→d, þ→th), apostrophes vanish inside a word, and every other character
 * separates words. The functions are pure; uniqueness is the repository's job because it
 * needs the stored data.
 *
 * @since 0.1.0
 */

/** Longest slug the service stores, suffix included. */
export const maxLength = 80

/** The shape every slug has. */
export const pattern = /^[a-z0-9]+(-[a-z0-9]+)*$/

// Letters NFKD leaves whole (no combining mark to strip), mapped after lower-casing.
const transliterations: Record<string, string> = {
  "ß": "ss",
  "æ": "ae",
  "œ": "oe",
  "ø": "o",
  "ł": "l",
  "đ": "d",
  "ð": "d",
  "þ": "th",
  "ı": "i",
  "ħ": "h",
  "ŧ": "t"
}
const transliterable = new RegExp(`[${Object.keys(transliterations).join("")}]`, "g")
const combiningMarks = /\p{M}+/gu
const apostrophes = /['’ʼ`]/g
const separators = /[^a-z0-9]+/g

/** Lower case, diacritics removed, transliterated, apostrophes gone: what slugs and search words are cut from. */
const fold = (text: string): string =>
  text
    .toLowerCase()
    .normalize("NFKD")
    .replace(combiningMarks, "")
    .replace(transliterable, (letter) => transliterations[letter]!)
    .replace(apostrophes, "")

/**
 * Cuts `slug` to at most `limit` characters, at a hyphen when the cut would split a word
 * (a single word longer than the limit is cut hard).
 */
const truncateAtWord = (slug: string, limit: number): string => {
  if (slug.length <= limit) return slug
  const hard = slug.slice(0, limit)
  // The cut lands on a word boundary when the next character is a hyphen.
  if (slug[limit] === "-") return hard.replace(/-+$/, "")
  const lastHyphen = hard.lastIndexOf("-")
  return lastHyphen > 0 ? hard.slice(0, lastHyphen) : hard
}

/**
 * Derives the base slug of a title. Returns `""` when the title has no letter or digit
 * that survives (for example only emoji or punctuation); callers then fall back to
 * {@link fallback}.
 */
export const fromTitle = (title: string): string => {
  const joined = fold(title).replace(separators, "-").replace(/^-+|-+$/g, "")
  return truncateAtWord(joined, maxLength)
}

/**
 * The words of `text` as search compares them: the slug's transliteration (lower case
 * ASCII letters and digits, diacritics removed, ß→ss and the like, apostrophes vanish
 * inside a word), words separated by single spaces, `""` when nothing survives.
 * `searchWords("Crème BRÛLÉE, l'été")` is `"creme brulee lete"`. Stored text and queries
 * both go through it, so they always agree on a word.
 */
export const searchWords = (text: string): string => fold(text).replace(separators, " ").trim()

/** The slug of a course whose title yields no base slug. */
export const fallback = (id: number): string => `course-${id}`

/**
 * The `n`-th candidate for a base slug: `base` itself for `n = 1`, then `base-2`,
 * `base-3`, … with the base shortened at a word boundary so the whole stays within
 * {@link maxLength}.
 */
export const candidate = (base: string, n: number): string => {
  if (n <= 1) return base
  const suffix = `-${n}`
  return `${truncateAtWord(base, maxLength - suffix.length)}${suffix}`
}
