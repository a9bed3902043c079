/**
 * One definition per stored record, and every shape around it derived from that
 * definition (Effect's `VariantSchema`). A record's fields are declared once, each with
 * the kind of field it is; each shape is a variant extracted from them:
 *
 * - `stored`: the record as repositories return it; SQL rows are decoded through it.
 * - `insert`: what a use case hands its repository to create one.
 * - `changes`: what a use case hands its repository to change one (every key optional;
 *   `undefined` changes nothing).
 * - `create` / `update`: what the API accepts on create and on PATCH, with the input
 *   rules (trimming, lengths, no NUL).
 * - `api`, `listItem`, `public`: what the admin API shows, an element of a list, and
 *   what students see.
 *
 * Adding a field is then one line in the definition, a migration, and the code that
 * really uses the field.
 *
 * @since 0.1.0
 */
import { Equal, Schema, Struct as Structs } from "effect"
import { VariantSchema } from "effect/schema"

const variants = VariantSchema.make({
  variants: ["stored", "insert", "changes", "create", "update", "api", "listItem", "public"],
  defaultVariant: "stored"
})

type Variant = "stored" | "insert" | "changes" | "create" | "update" | "api" | "listItem" | "public"

// `Field` rejects keys that are not variants; the kinds below build their keys from
// `Variant` only, which a generic `View` parameter keeps the checker from seeing.
const field = variants.Field as <const A extends VariantSchema.Field.ConfigWithKeys<Variant>>(
  config: A
) => VariantSchema.Field<A>

/** A field whose shapes differ from the kinds below: its schema per variant. */
export const Field = field

/** Declares a record's fields. */
export const Struct = variants.Struct

/** One shape of a record: `RecordVariants.extract(CourseFields, "api")`. */
export const extract = variants.extract

/** A shape that shows a record: the admin API's, a list's, the public one. */
export type View = "api" | "listItem" | "public"

/** `schema` under each of `views`: the shown part of a field's config. */
export const shownIn = <S extends Schema.Top, V extends View>(schema: S, views: ReadonlyArray<V>) => {
  const config: Partial<Record<View, S>> = {}
  for (const view of views) config[view] = schema
  return config as { readonly [K in V]: S }
}

/** Assigned by the service or the store (ids, slugs): stored and shown, never written by a client. */
export const generated = <S extends Schema.Top, V extends View>(schema: S, views: ReadonlyArray<V>) =>
  field({ stored: schema, ...shownIn(schema, views) })

/** An author's field: stored and shown as `schema`, optional in `changes` and on PATCH. */
const authoredField = <S extends Schema.Top, I extends Schema.Top, C extends Schema.Top, N extends Schema.Top, V extends View>(
  schema: S,
  input: I,
  shapes: { readonly create: C; readonly insert: N },
  views: ReadonlyArray<V>
) =>
  field({
    stored: schema,
    insert: shapes.insert,
    changes: Schema.optional(schema),
    create: shapes.create,
    update: Schema.optionalKey(input),
    ...shownIn(schema, views)
  })

/**
 * Written by an author: required on create, optional on PATCH. `input` holds the input
 * rules; `schema` is how it is stored and shown (stored values are never re-validated).
 */
export const authored = <S extends Schema.Top, I extends Schema.Top, V extends View>(
  schema: S,
  input: I,
  views: ReadonlyArray<V>
) => authoredField(schema, input, { create: input, insert: schema }, views)

/**
 * Written by an author, and optional on create too: the use case decides what an absent
 * value is stored as (the insert still names every field).
 */
export const authoredOptional = <S extends Schema.Top, I extends Schema.Top, V extends View>(
  schema: S,
  input: I,
  views: ReadonlyArray<V>
) => authoredField(schema, input, { create: Schema.optionalKey(input), insert: schema }, views)

/**
 * Written by an author and optional everywhere: absent on create is stored as `null`
 * (the column's default; `absentAsNull` for stores without one), `null` on PATCH clears it.
 */
export const authoredNullable = <S extends Schema.Top, I extends Schema.Top, V extends View>(
  schema: S,
  input: I,
  views: ReadonlyArray<V>
) =>
  authoredField(Schema.NullOr(schema), Schema.NullOr(input), {
    create: Schema.optionalKey(Schema.NullOr(input)),
    insert: Schema.optionalKey(Schema.NullOr(schema))
  }, views)

/** Set by the service after creation (a finalized thumbnail's key): stored, changed, shown. */
export const maintained = <S extends Schema.Top, V extends View>(schema: S, views: ReadonlyArray<V>) =>
  field({ stored: schema, changes: Schema.optional(schema), ...shownIn(schema, views) })

/** Computed from stored fields when shown (a key's public URL); never stored. */
export const derived = <S extends Schema.Top, V extends View>(schema: S, views: ReadonlyArray<V>) =>
  field(shownIn(schema, views))

/** An instant the store sets: a `Date` in SQL rows, an ISO string in JSON. */
export const timestamp = <V extends View>(views: ReadonlyArray<V>, description?: string) => {
  const shown = description === undefined ? Schema.DateTimeUtcFromString : Schema.DateTimeUtcFromString.annotate({ description })
  return field({ stored: Schema.DateTimeUtcFromDate, ...shownIn(shown, views) })
}

/**
 * A record's version: 1 when created, one more on every change, counted by the store
 * (never written by a client). Shown in `views`, and as an optional key in `adminViews`
 * (present in what admins are shown, absent from what the public is).
 */
export const version = <V extends View, O extends View = never>(views: ReadonlyArray<V>, adminViews: ReadonlyArray<O> = []) => {
  const shown = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
    description: "1 when created, one more on every change (a move that shifts it included), counted by the database."
  })
  return field({ stored: Schema.Int, ...shownIn(shown, views), ...shownIn(Schema.optionalKey(shown), adminViews) })
}

/**
 * `after` with its version as a store counts it: one more than `before`'s when any field
 * but `version` and `updated_at` differs, else `before`'s. For in-memory stores; the
 * PostgreSQL ones count in a trigger (migration 0015).
 */
export const counted = <A extends { readonly version: number }>(before: A, after: A): A => {
  for (const key of Object.keys(after) as Array<keyof A & string>) {
    if (key === "version" || key === "updated_at") continue
    if (!Equal.equals(before[key], after[key])) return { ...after, version: before.version + 1 }
  }
  return after.version === before.version ? after : { ...after, version: before.version }
}

/**
 * The fields of `value` that `shape` names, and no others: a view never leaks a stored
 * field, and a repository never writes a key its shape does not name (TypeScript lets an
 * object with extra properties through). Keys absent from `value` stay absent.
 */
export const pick = <F extends Schema.Struct.Fields>(shape: Schema.Struct<F>) => {
  const keys = Object.keys(shape.fields)
  return <A extends { readonly [K in keyof F]?: unknown }>(value: A): Pick<A, keyof F & keyof A> => {
    const picked: Partial<Record<string, unknown>> = {}
    for (const key of keys) if (key in value) picked[key] = value[key as keyof A]
    return picked as Pick<A, keyof F & keyof A>
  }
}

/**
 * The stored fields a view is made of: each stored field the view shows, and the stored
 * fields its derived ones are computed from (`sources`, such as the key a thumbnail's URL
 * is made from). What a repository reads for the view, so its column list follows the
 * record: a field added to the record and shown in the view is read with no other change.
 */
export const storedFor = <F extends Schema.Struct.Fields, V extends Schema.Struct.Fields, const S extends keyof F & string = never>(
  stored: Schema.Struct<F>,
  view: Schema.Struct<V>,
  sources: ReadonlyArray<S> = []
): Schema.Struct<Pick<F, (keyof V & keyof F & string) | S>> => {
  const keys = [...Object.keys(view.fields), ...sources].filter((key): key is (keyof V & keyof F & string) | S => key in stored.fields)
  return Schema.Struct(Structs.pick(stored.fields, [...new Set(keys)]))
}

/** The columns of `shape`, in its order: the keys of its fields. */
export const columnsOf = <F extends Schema.Struct.Fields>(shape: Schema.Struct<F>): ReadonlyArray<keyof F & string> =>
  Object.keys(shape.fields) as Array<keyof F & string>

/**
 * The keys `view` shows to admins only: those it declares optional, as `publishStatusField`,
 * `publishAtField` and {@link version} declare theirs in `adminViews`. A view that made a
 * field optional for another reason would hide it from the public: declare such a field
 * nullable instead.
 */
export const adminOnlyKeys = <F extends Schema.Struct.Fields>(view: Schema.Struct<F>): ReadonlyArray<keyof F & string> =>
  Object.keys(view.fields).filter((key) => view.fields[key]!.ast.context?.isOptional === true) as Array<keyof F & string>

/**
 * `null` for every key an insert may leave out (`authoredNullable` fields), for stores
 * that have no column defaults: `{ ...absentAsNull(CourseInsert), ...insert }`.
 */
export const absentAsNull = <F extends Schema.Struct.Fields>(insert: Schema.Struct<F>): OptionalAsNull<Schema.Struct<F>["Type"]> => {
  const nulls: Record<string, null> = {}
  for (const [key, schema] of Object.entries(insert.fields)) if (schema.ast.context?.isOptional === true) nulls[key] = null
  return nulls as OptionalAsNull<Schema.Struct<F>["Type"]>
}

/** `null` for each optional key of `A`. */
export type OptionalAsNull<A> = { readonly [K in keyof A as {} extends Pick<A, K> ? K : never]-?: null }

/** The keys of `changes` that are set: a key present as `undefined` changes nothing. */
export const definedOnly = <A extends object>(changes: A): { readonly [K in keyof A]?: Exclude<A[K], undefined> } =>
  Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as {
    readonly [K in keyof A]?: Exclude<A[K], undefined>
  }
