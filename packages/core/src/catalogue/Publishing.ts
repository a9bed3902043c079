/**
 * Drafts and scheduled releases, shared by courses and lessons: an item is `draft` or
 * `published`, and a published item with a `publish_at` in the future is *scheduled*. It
 * becomes visible at that instant by the rule of {@link isVisibleAt}, which every read
 * applies with the store's clock: no job runs at the instant, and every instance agrees.
 *
 * @since 0.2.0
 */
import { DateTime, Schema, SchemaTransformation } from "effect"
import * as RecordVariants from "../shared/RecordVariants.ts"

/** Whether an item is an author's draft or released (now or at `publish_at`). */
export const PublishStatus = Schema.Literals(["draft", "published"]).annotate({
  description: "draft: seen by admins only. published: visible to everyone from publish_at on (at once when null)."
})
export type PublishStatus = typeof PublishStatus.Type

/** The admin list's filter: `scheduled` is published with a `publish_at` still in the future. */
export const PublishStatusFilter = Schema.Literals(["draft", "published", "scheduled"]).annotate({
  description: "draft: drafts only. published: published and visible now. scheduled: published, publish_at in the future."
})
export type PublishStatusFilter = typeof PublishStatusFilter.Type

// RFC 3339: a calendar date, a time to the minute at least, and an explicit offset, so an
// instant never depends on the server's time zone.
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

const latestInstant = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** Why `text` is not an instant `publish_at` accepts, or undefined when it is one. */
const instantProblem = (text: string): string | undefined => {
  const parts = rfc3339.exec(text)
  const expected = "an RFC 3339 date-time with an offset, e.g. 2026-12-01T09:00:00Z"
  if (parts === null) return `must be ${expected}`
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = parts.slice(1).map((part) => Number(part ?? 0))
  // Date.UTC rolls 30 February over to March: a day that is not in its month comes back changed.
  const calendar = new Date(Date.UTC(year!, month! - 1, day!))
  if (month! < 1 || month! > 12 || calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day!) {
    return `names a day that does not exist (${text.slice(0, 10)})`
  }
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours! > 23 || offsetMinutes! > 59) {
    return `must be ${expected}`
  }
  // The range holds for the instant in UTC, as it is stored and shown back.
  const instant = Date.parse(text)
  if (!(instant >= 0 && instant <= latestInstant)) return "must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"
  return undefined
}

// The offset an instant was written with: none for `Z` (UTC), else its sign, hours and minutes.
const writtenOffset = /([+-])(\d{2}):(\d{2})$/

/**
 * A checked instant as its writer wrote it: `Z` is UTC, `±hh:mm` a zone of that fixed
 * offset. Encoded back with its offset (`DateTime.formatIsoOffset`): UTC as `…Z`, any
 * other zone (a named one too) as the offset it has at that instant.
 */
const instantWithItsOffset = SchemaTransformation.transform<DateTime.DateTime, string>({
  decode: (text) => {
    // instantProblem has passed: the text is RFC 3339 and Date.parse reads it.
    const instant = Date.parse(text)
    const offset = writtenOffset.exec(text)
    if (offset === null) return DateTime.makeUnsafe(instant)
    const minutes = Number(offset[2]) * 60 + Number(offset[3])
    return DateTime.makeZonedUnsafe(instant, { timeZone: DateTime.zoneMakeOffset((offset[1] === "-" ? -minutes : minutes) * 60_000) })
  },
  encode: DateTime.formatIsoOffset
})

/**
 * An instant as an author writes it: RFC 3339 with an offset (`Z` or `±hh:mm`), from
 * 1970-01-01 to the end of 9999 in UTC. Decoded with the writer's offset kept (a
 * `DateTime.Utc` for `Z`, a `DateTime.Zoned` of that fixed offset otherwise) and encoded
 * with it, so a client sends `2026-12-01T10:00:00.000+01:00` as the author meant it.
 * Stores keep the instant in UTC ({@link publishAtStored}), and it is shown back as `…Z`.
 */
export const PublishAtInput = Schema.String.check(
  Schema.makeFilter<string>((text) => {
    const problem = instantProblem(text)
    return problem === undefined ? undefined : `publish_at ${problem}`
  })
).pipe(
  Schema.decodeTo(Schema.Union([Schema.DateTimeUtc, Schema.DateTimeZoned]), instantWithItsOffset),
  Schema.annotate({
    description: "When a published item becomes visible: an RFC 3339 date-time with an offset " +
      "(2026-12-01T09:00:00Z, 2026-12-01T10:00:00+01:00). null: as soon as it is published."
  })
)
export type PublishAtInput = typeof PublishAtInput.Type

/**
 * A create's or update's `publish_at` as stores keep it: the same instant in UTC. Every
 * use case that hands `publish_at` to a store goes through here, so no store sees a
 * zoned value.
 */
export const publishAtStored = (at: PublishAtInput | null): DateTime.Utc | null => at === null ? null : DateTime.toUtc(at)

/** `changes` with its `publish_at` (when present) in UTC: what an update hands its store. */
export const withPublishAtStored = <C extends { readonly publish_at?: PublishAtInput | null }>(
  changes: C
): Omit<C, "publish_at"> & { readonly publish_at?: DateTime.Utc | null } => {
  const { publish_at, ...rest } = changes
  return publish_at === undefined ? rest : { ...rest, publish_at: publishAtStored(publish_at) }
}

const adminOnly = " Shown to admins only."

/**
 * The `status` field of a record: optional on create (the use case stores `published`
 * when absent), shown in `views`, and as an optional key in `adminViews` (present in
 * what admins are shown, absent from what the public is).
 */
export const publishStatusField = <V extends RecordVariants.View, O extends RecordVariants.View>(
  views: ReadonlyArray<V>,
  adminViews: ReadonlyArray<O>
) =>
  RecordVariants.Field({
    stored: PublishStatus,
    insert: PublishStatus,
    changes: Schema.optional(PublishStatus),
    create: Schema.optionalKey(PublishStatus.annotate({ description: `${PublishStatus.ast.annotations?.description} Default published.` })),
    update: Schema.optionalKey(PublishStatus),
    ...RecordVariants.shownIn(PublishStatus, views),
    ...RecordVariants.shownIn(Schema.optionalKey(PublishStatus.annotate({ description: `${PublishStatus.ast.annotations?.description}${adminOnly}` })), adminViews)
  })

const PublishAtShown = Schema.NullOr(Schema.DateTimeUtcFromString).annotate({
  description: "When the item becomes (or became) visible, if published; null: as soon as it is published."
})

// A stored instant or null, null tried first: a row's null is also an object to the union,
// and trying the Date member first fails (and builds the failure) for every null read.
const StoredInstant = Schema.Union([Schema.Null, Schema.DateTimeUtcFromDate])

/** The `publish_at` field of a record: optional on create (absent: null), `null` on PATCH clears it. */
export const publishAtField = <V extends RecordVariants.View, O extends RecordVariants.View>(
  views: ReadonlyArray<V>,
  adminViews: ReadonlyArray<O>
) =>
  RecordVariants.Field({
    stored: StoredInstant,
    insert: StoredInstant,
    changes: Schema.optional(StoredInstant),
    create: Schema.optionalKey(Schema.NullOr(PublishAtInput)),
    update: Schema.optionalKey(Schema.NullOr(PublishAtInput)),
    ...RecordVariants.shownIn(PublishAtShown, views),
    ...RecordVariants.shownIn(Schema.optionalKey(PublishAtShown.annotate({ description: `${PublishAtShown.ast.annotations?.description}${adminOnly}` })), adminViews)
  })

/** The publishing state of a stored item. */
export interface Publishable {
  readonly status: PublishStatus
  readonly publish_at: DateTime.Utc | null
}

/** Whether `item` is visible to students at `now`: published, and `publish_at` (if any) passed. */
export const isVisibleAt = (item: Publishable, now: DateTime.Utc): boolean =>
  item.status === "published" && (item.publish_at === null || DateTime.toEpochMillis(item.publish_at) <= DateTime.toEpochMillis(now))

/** Whether `item` matches the admin list's `filter` at `now`. */
export const matchesStatusFilter = (item: Publishable, filter: PublishStatusFilter, now: DateTime.Utc): boolean => {
  switch (filter) {
    case "draft":
      return item.status === "draft"
    case "published":
      return isVisibleAt(item, now)
    case "scheduled":
      return item.status === "published" && !isVisibleAt(item, now)
  }
}

/**
 * Who a catalogue read is for: `public` sees what is visible now (anonymous callers and
 * viewers), `admin` sees everything and may filter by status.
 */
export type CatalogueAudience =
  | { readonly _tag: "Public" }
  | { readonly _tag: "Admin"; readonly status?: PublishStatusFilter | undefined }

/** The audience of anonymous callers and viewers. */
export const publicAudience: CatalogueAudience = { _tag: "Public" }

/** The admin audience, optionally filtered by status. */
export const adminAudience = (status?: PublishStatusFilter): CatalogueAudience => ({ _tag: "Admin", status })

/**
 * Whether `audience` sees `item` at `now`: the public what {@link isVisibleAt}, admins
 * every item, or those {@link matchesStatusFilter} when they filter. The one rule of the
 * catalogue's reads (the list, the search); SQL stores state it in their own language.
 */
export const isShownTo = (audience: CatalogueAudience, item: Publishable, now: DateTime.Utc): boolean =>
  audience._tag === "Public"
    ? isVisibleAt(item, now)
    : audience.status === undefined || matchesStatusFilter(item, audience.status, now)

/** The publishing state of an item released at once: what a create without `status` stores. */
export const publishedNow = { status: "published", publish_at: null } as const satisfies Publishable
