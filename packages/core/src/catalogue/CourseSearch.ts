/**
 * Catalogue search, defined once for every store: what a query is, which words of a
 * course are searchable, what matches, how matches rank, and the cursor of the next page.
 *
 * - Words: both the query and the course go through {@link Slug.searchWords} (the slug's
 *   transliteration), so "creme brulee" and "CRÈME BRÛLÉE" are the same words.
 * - A course's searchable words ({@link searchDocument}): its title, its description and
 *   the text of its `content_html` (no tag names, no attribute values; the first
 *   {@link bodyTextMaxLength} characters of the text), each word of at most
 *   {@link wordMaxLength} characters.
 * - Matching: every distinct word of the query must occur in the course (in any of the
 *   three fields); the last one also matches as a prefix ("creme bru" finds "Crème
 *   brûlée"), for search as you type.
 * - Ranking ({@link scoreOf}): each query word scores where it occurs best, title
 *   {@link fieldWeights}`.title`, else description, else body; a course's score is the
 *   sum. Higher scores first, ties by ascending id. Integers, so every store computes
 *   the same score and the same order, and a cursor `(score, id)` is exact.
 * - Who finds what: a search has an audience, as the list has. The public's (the
 *   default) finds the courses visible now: the students' search, for everyone who asks
 *   without a status. An admin's ({@link searchAudience} of a {@link SearchStatusFilter})
 *   finds the courses the admin list shows with the same filter: the authors' search.
 *
 * @since 0.2.0
 */
import { isCanonicalBase64Url } from "../shared/CanonicalBase64Url.ts"
import { Option, Schema, SchemaTransformation, Struct } from "effect"
import { CourseId, type CourseListItem, CourseListRow } from "./Course.ts"
import { htmlText } from "../html/htmlText.ts"
import { adminAudience, type CatalogueAudience, PublishStatusFilter } from "./Publishing.ts"
import * as Slug from "./Slug.ts"
import { storableText } from "../shared/StorableText.ts"

/** Longest query, in characters, after trimming. */
export const queryMaxLength = 200

/** How much of a body's text is searchable: its first characters, once transliterated. */
export const bodyTextMaxLength = 200_000

/** Longest searchable word: longer runs of letters are not words (hashes, data). */
export const wordMaxLength = 100

/** What a query word scores, by the field it occurs in. */
export const fieldWeights = { title: 5, description: 2, body: 1 } as const

/** The `q` of a search as accepted on input: trimmed, 1 to 200 characters, with a letter or digit. */
export const SearchQuery = Schema.Trim.check(
  Schema.isNonEmpty({ message: "q must not be empty" }),
  storableText("q"),
  Schema.isMaxLength(queryMaxLength, { message: `q must be at most ${queryMaxLength} characters` }),
  Schema.makeFilter<string>((q) => Slug.searchWords(q) === "" ? "q must contain a letter or a digit" : undefined)
).annotate({
  description: `Words to find, trimmed, 1 to ${queryMaxLength} characters. Case, diacritics and punctuation do not ` +
    "matter (\"creme brulee\" finds \"Crème brûlée\"). Every word must occur in the course's title, description or " +
    "text; the last word also matches the beginning of a word."
})

/**
 * The `status` of an admin's search: `all` (every course, drafts and scheduled ones
 * included) or one of the admin list's {@link PublishStatusFilter}s. Absent, a search is
 * the students' (courses visible now), admins' included.
 */
export const SearchStatusFilter = Schema.Literals(["all", ...PublishStatusFilter.literals]).annotate({
  description: "Admins only (else 401, or 403 for a viewer): search the courses the admin list shows with this " +
    "filter, with their status and publish_at. all: every course, drafts and scheduled ones too. draft: drafts only. " +
    "published: published and visible now. scheduled: published, publish_at in the future. Without it, the " +
    "students' search (courses visible now), for admins too."
})
export type SearchStatusFilter = typeof SearchStatusFilter.Type

/** The audience of an admin's search by `status`: `all` is the unfiltered admin audience. */
export const searchAudience = (status: SearchStatusFilter): CatalogueAudience =>
  adminAudience(status === "all" ? undefined : status)

/**
 * The words of a query: the distinct words of {@link Slug.searchWords}, in order; the
 * last one matches as a prefix. Empty when the query has no letter or digit.
 */
export const searchTerms = (query: string): ReadonlyArray<string> => {
  const words = Slug.searchWords(query)
  return words === "" ? [] : [...new Set(words.split(" "))]
}

/** The searchable words of a course, by field: distinct, in order of first occurrence. */
export interface SearchDocument {
  readonly title: ReadonlyArray<string>
  readonly description: ReadonlyArray<string>
  readonly body: ReadonlyArray<string>
}

const distinctWords = (words: string): ReadonlyArray<string> =>
  words === "" ? [] : [...new Set(words.split(" "))].filter((word) => word.length <= wordMaxLength)

/** `words` cut to at most `limit` characters at a space, so no word is cut in two. */
const firstWords = (words: string, limit: number): string => {
  if (words.length <= limit) return words
  if (words[limit] === " ") return words.slice(0, limit)
  const space = words.lastIndexOf(" ", limit)
  return space === -1 ? "" : words.slice(0, space)
}

/**
 * The searchable words of a course, computed when it is written: the title, the
 * description and the text of the (sanitized) `content_html`.
 */
export const searchDocument = (course: {
  readonly title: string
  readonly description?: string | null | undefined
  readonly content_html: string
}): SearchDocument => ({
  title: distinctWords(Slug.searchWords(course.title)),
  description: distinctWords(Slug.searchWords(course.description ?? "")),
  body: distinctWords(firstWords(Slug.searchWords(htmlText(course.content_html)), bodyTextMaxLength))
})

/** Whether `words` hold `term`, or a word it begins when `prefix`. */
const holds = (words: ReadonlyArray<string>, term: string, prefix: boolean) =>
  prefix ? words.some((word) => word.startsWith(term)) : words.includes(term)

/**
 * The score of `document` for `terms` (see {@link searchTerms}): per term, the weight of
 * the best field it occurs in, summed; `0` when some term occurs nowhere (no match).
 * Stores compute the same in their own language (SQL); the in-memory store calls this.
 */
export const scoreOf = (document: SearchDocument, terms: ReadonlyArray<string>): number => {
  let score = 0
  for (let index = 0; index < terms.length; index++) {
    const term = terms[index]!
    const prefix = index === terms.length - 1
    const weight = holds(document.title, term, prefix)
      ? fieldWeights.title
      : holds(document.description, term, prefix)
      ? fieldWeights.description
      : holds(document.body, term, prefix)
      ? fieldWeights.body
      : 0
    if (weight === 0) return 0
    score += weight
  }
  return score
}

/** The largest score a cursor may name (the scores of 200 characters of words stay far below). */
export const maxSearchScore = 2_147_483_647

/** Where a page of results ends: the last result's score and id. The next page starts after it. */
export const SearchCursor = Schema.Struct({
  score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxSearchScore })),
  id: CourseId
})
export type SearchCursor = typeof SearchCursor.Type

/**
 * A cursor as text: `<score>.<id>` in base64url, exactly as written — unpadded, in the one
 * spelling encoding gives (base64 decoding also reads padded text, other unused bits in
 * the last character and line breaks: each would be another URL for the same page).
 * Opaque to clients; not signed (a forged cursor only moves where a page of public
 * results starts).
 */
export const SearchCursorFromString = Schema.String.check(
  Schema.isMaxLength(64),
  Schema.makeFilter((text: string) =>
    isCanonicalBase64Url(text) ? undefined : "a cursor is written unpadded, in the spelling the service wrote it"
  )
).pipe(
  Schema.decodeTo(
    Schema.String.check(Schema.isPattern(/^(?:0|[1-9][0-9]{0,9})\.[1-9][0-9]{0,9}$/)),
    SchemaTransformation.stringFromBase64UrlString
  ),
  Schema.decodeTo(
    SearchCursor,
    SchemaTransformation.transform({
      decode: (text: string) => {
        const [score, id] = text.split(".")
        return { score: Number(score), id: Number(id) }
      },
      encode: (cursor: { readonly score: number; readonly id: number }) => `${cursor.score}.${cursor.id}`
    })
  )
)

/** `cursor` as the text a client sends back. */
export const encodeSearchCursor: (cursor: SearchCursor) => string = Schema.encodeSync(SearchCursorFromString)

/** The cursor of `text`, or none when it is not one this service wrote. */
export const decodeSearchCursor: (text: string) => Option.Option<SearchCursor> = Schema.decodeUnknownOption(SearchCursorFromString)

/** A request for rows of search results (see `CourseRepo.search`). */
export interface CourseSearchRequest {
  /** The query's {@link searchTerms}: at least one; the last matches as a prefix. */
  readonly terms: ReadonlyArray<string>
  /** The results come after this one (lower score, or the same score and a higher id). */
  readonly after: SearchCursor | undefined
  readonly limit: number
  /**
   * Whose search: the courses `CourseRepo.list` would show this audience (`Publishing.isShownTo`).
   * Absent: the public's, the courses visible now.
   */
  readonly audience?: CatalogueAudience | undefined
}

/** A search result as stored: a list row and its score. */
export const CourseSearchRow = CourseListRow.mapFields(Struct.assign({ score: Schema.Int }))
export type CourseSearchRow = typeof CourseSearchRow.Type

/** A request for one page of search results (`Courses.search`). */
export interface CourseSearchPageRequest {
  /** What was typed; a query without a letter or digit finds nothing. */
  readonly query: string
  /** The cursor text of the previous page's `next`; absent for the first page. */
  readonly cursor: string | undefined
  readonly limit: number
  /**
   * Whose search (see {@link CourseSearchRequest}); an admin audience's items show
   * `status` and `publish_at`, as the admin list's do. Absent: the public's.
   */
  readonly audience?: CatalogueAudience | undefined
}

/** One page of search results, best first, and the cursor of the next page, if any. */
export interface CourseSearchPage {
  readonly items: ReadonlyArray<CourseListItem>
  readonly next: string | undefined
}

/** A search cursor that this service did not write, or that was changed. */
export class InvalidSearchCursor extends Schema.TaggedError<InvalidSearchCursor>()(
  "InvalidSearchCursor",
  {},
  { description: "The cursor is not one a search answered." }
) {
  override get message(): string {
    return "cursor is not a cursor of this search: use the one the previous page's Link header names, or none for the first page."
  }
}
