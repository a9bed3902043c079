/**
 * Coursekit in a database it shares (issue #15): everything of Coursekit's in its own
 * schema, beside a host's tables of the same names, two instances in two schemas, and a
 * database laid out before schemas moved into one. Run on PostgreSQL and on PGlite: each
 * test gets a fresh database (`freshDatabase`) with nothing of Coursekit's in `public`.
 */
import { type CourseId, CourseRepo, LessonRepo, publicAudience, publishedNow, PurchaseRepo, type UserId } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import { layerMigrations, migrations, migrationsTable } from "../src/PgMigrations.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import * as PgSchema from "../src/PgSchema.ts"

/** Coursekit's repositories in `schema` of the database in context, migrated first. */
const coursekitIn = (schema: string) =>
  Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer).pipe(
    Layer.provideMerge(layerMigrations),
    Layer.provide(PgSchema.layer(schema))
  )

/** A host application's own `courses`, `lessons` and `purchases` in `public`, with rows, a sequence each and a trigger. */
const createHostTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE public.courses (id serial PRIMARY KEY, name text NOT NULL, price_cents integer, updated_at timestamptz)`
  yield* sql`CREATE TABLE public.lessons (id serial PRIMARY KEY, course_id integer REFERENCES public.courses (id), body text)`
  yield* sql`CREATE TABLE public.purchases (id bigserial PRIMARY KEY, customer text NOT NULL, course_id integer, paid boolean)`
  yield* sql`
    CREATE FUNCTION public.host_touch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN NEW.updated_at := '2001-02-03T04:05:06Z'; RETURN NEW; END
    $$
  `
  yield* sql`CREATE TRIGGER host_touch BEFORE UPDATE ON public.courses FOR EACH ROW EXECUTE FUNCTION public.host_touch()`
  yield* sql`INSERT INTO public.courses (name, price_cents) VALUES ('Host algebra', 1200), ('Host crème brûlée', NULL)`
  yield* sql`INSERT INTO public.lessons (course_id, body) VALUES (1, 'Host lesson one'), (2, '<p>Host two</p>')`
  yield* sql`INSERT INTO public.purchases (customer, course_id, paid) VALUES ('host-user-1', 1, true), ('host-user-2', 2, false)`
})

/**
 * Everything in `public` as text: its objects, functions, columns, constraints,
 * triggers and indexes as the catalog describes them, every row of the host's three
 * tables as PostgreSQL writes it, and each sequence's state.
 */
const publicSnapshot = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [snapshot] = yield* sql<{ readonly text: string }>`
    SELECT json_build_array(
      (SELECT json_agg(c.relname || ':' || c.relkind::text ORDER BY c.relname) FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace),
      (SELECT json_agg(pg_get_functiondef(p.oid) ORDER BY p.proname) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace),
      (SELECT json_agg(table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
        ORDER BY table_name, ordinal_position) FROM information_schema.columns WHERE table_schema = 'public'),
      (SELECT json_agg(conname || ' ' || pg_get_constraintdef(oid) ORDER BY conname) FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
      (SELECT json_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = 'public'::regnamespace),
      (SELECT json_agg(indexdef ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public'),
      (SELECT json_agg(x::text ORDER BY x.id) FROM public.courses x),
      (SELECT json_agg(x::text ORDER BY x.id) FROM public.lessons x),
      (SELECT json_agg(x::text ORDER BY x.id) FROM public.purchases x),
      (SELECT json_agg(last_value || ' ' || is_called) FROM public.courses_id_seq),
      (SELECT json_agg(last_value || ' ' || is_called) FROM public.lessons_id_seq),
      (SELECT json_agg(last_value || ' ' || is_called) FROM public.purchases_id_seq)
    )::text AS text
  `
  return snapshot!.text
})

/** The database's objects of Coursekit's names in `schema`: tables and functions. */
const coursekitObjectsIn = (schema: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly name: string }>`
      SELECT c.relname AS name FROM pg_class c
      WHERE c.relnamespace = to_regnamespace(${schema}) AND c.relkind = 'r' AND c.relname IN ${sql.in(PgSchema.tableNames)}
      UNION ALL
      SELECT p.proname FROM pg_proc p WHERE p.pronamespace = to_regnamespace(${schema}) AND p.proname IN ${sql.in(PgSchema.functionNames)}
      ORDER BY 1
    `
    return rows.map((row) => row.name)
  })

const allOfCoursekit = [...PgSchema.tableNames, ...PgSchema.functionNames].sort()

/** A published course with a lesson and a purchase, through the repositories in context. */
const writeCourse = (title: string, buyer: UserId) =>
  Effect.gen(function*() {
    const course = yield* (yield* CourseRepo).insert({ ...publishedNow, title, slugBase: title.toLowerCase().replaceAll(" ", "-"), content_html: "<p>c</p>" })
    yield* (yield* LessonRepo).insert(course.id, {
      ...publishedNow,
      title: `${title}, lesson`,
      content_html: "<p>l</p>",
      video_key: null,
      is_preview: true,
      section_id: null
    })
    yield* (yield* PurchaseRepo).grant(course.id, buyer)
    return course
  })

const listedTitles = Effect.gen(function*() {
  const { rows } = yield* (yield* CourseRepo).list({ cursor: undefined, limit: 50, audience: publicAudience })
  return rows.map((row) => row.title)
})

export const sharedDatabaseSuite = <E>(name: string, freshDatabase: () => Layer.Layer<SqlClient.SqlClient, E>) =>
  describe(`Coursekit in a shared database: ${name}`, () => {
    it.effect("beside a host's own courses, lessons and purchases: Coursekit migrates and runs in its schema, and the host's tables and rows are byte for byte as they were", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* createHostTables
        const before = yield* publicSnapshot
        const course = yield* Effect.provide(
          Effect.gen(function*() {
            const written = yield* writeCourse("Coursekit neighbour", "user-1" as UserId)
            assert.deepStrictEqual(yield* listedTitles, ["Coursekit neighbour"])
            assert.lengthOf(yield* (yield* LessonRepo).listForViewer(written.id, DateTime.makeUnsafe(0)), 1)
            assert.isTrue(yield* (yield* PurchaseRepo).has(written.id, "user-1" as UserId))
            yield* (yield* CourseRepo).update(written.id, { title: "Coursekit neighbour, renamed" })
            return written
          }),
          coursekitIn(PgSchema.defaultSchema)
        )
        assert.strictEqual(yield* publicSnapshot, before)
        // Coursekit's rows are in its schema; of Coursekit's names, public holds the host's three only.
        const [mine] = yield* sql<{ readonly title: string }>`SELECT title FROM coursekit.courses WHERE id = ${course.id}`
        assert.strictEqual(mine?.title, "Coursekit neighbour, renamed")
        assert.deepStrictEqual(yield* coursekitObjectsIn("coursekit"), allOfCoursekit)
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), ["courses", "lessons", "purchases"])
      }).pipe(Effect.provide(freshDatabase())), 60_000)

    it.effect("two instances in two schemas of one database: writes in one are invisible in the other, and each catalogue version moves with its own writes only", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const inA = <A, E2, R>(effect: Effect.Effect<A, E2, R>) => Effect.provide(effect, coursekitIn("tenant_a"))
        const inB = <A, E2, R>(effect: Effect.Effect<A, E2, R>) => Effect.provide(effect, coursekitIn("tenant_b"))
        const versionA = inA(Effect.flatMap(Effect.service(CourseRepo), (repo) => repo.version))
        const versionB = inB(Effect.flatMap(Effect.service(CourseRepo), (repo) => repo.version))
        const a = yield* inA(writeCourse("Only in A", "user-a" as UserId))
        const b = yield* inB(writeCourse("Only in B", "user-b" as UserId))
        assert.deepStrictEqual(yield* inA(listedTitles), ["Only in A"])
        assert.deepStrictEqual(yield* inB(listedTitles), ["Only in B"])
        // The same first id in each: two identities, two sequences.
        assert.strictEqual(a.id, b.id)
        const bought = (user: string) => Effect.flatMap(Effect.service(PurchaseRepo), (repo) => repo.has(a.id, user as UserId))
        assert.isTrue(yield* inA(bought("user-a")))
        assert.isFalse(yield* inB(bought("user-a")))
        assert.isFalse(yield* inA(bought("user-b")))

        // A write in A, by the repository or by plain SQL from a session whose search_path
        // is B's, moves A's version and never B's.
        const [beforeA, beforeB] = [yield* versionA, yield* versionB]
        yield* inA(Effect.flatMap(Effect.service(CourseRepo), (repo) => repo.update(a.id, { title: "A, renamed" })))
        const [midA, midB] = [yield* versionA, yield* versionB]
        assert.notStrictEqual(midA, beforeA)
        assert.strictEqual(midB, beforeB)
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`SET LOCAL search_path TO tenant_b`
          yield* sql`UPDATE tenant_a.courses SET title = 'A, by SQL' WHERE id = ${a.id}`
        }))
        const [afterA, afterB] = [yield* versionA, yield* versionB]
        assert.notStrictEqual(afterA, midA)
        assert.strictEqual(afterB, beforeB)
        assert.deepStrictEqual(yield* inA(listedTitles), ["A, by SQL"])
        assert.deepStrictEqual(yield* inB(listedTitles), ["Only in B"])
        // And the other way round.
        yield* inB(Effect.flatMap(Effect.service(CourseRepo), (repo) => repo.delete(b.id)))
        assert.strictEqual(yield* versionA, afterA)
        assert.notStrictEqual(yield* versionB, afterB)
        assert.deepStrictEqual(yield* inB(listedTitles), [])
        assert.deepStrictEqual(yield* inA(listedTitles), ["A, by SQL"])
      }).pipe(Effect.provide(freshDatabase())), 60_000)

    it.effect("a database laid out before schemas (Coursekit's tables in public) is moved into the schema at start: rows, ids, applied steps and triggers kept", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // What an earlier Coursekit left: its twelve steps run in the connection's default
        // schema, public, and rows written there.
        const { "0013_function_search_path": _, "0014_opaque_catalogue_token": _14, "0015_record_versions": _15, "0016_revisions": _16, "0017_learner_progress": _17, "0018_admin_sessions": _18, ...before } = migrations
        yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: migrationsTable }).pipe(
          Effect.provide(PgSchema.layer("public"))
        )
        yield* sql`INSERT INTO courses (title, slug, content_html) VALUES ('Old course', 'old-course', '<p>old</p>')`
        yield* sql`INSERT INTO lessons (course_id, title, content_html, position) SELECT id, 'Old lesson', '<p>l</p>', 1 FROM courses`
        yield* sql`INSERT INTO purchases (user_id, course_id) SELECT 'user-1', id FROM courses`
        const [old] = yield* sql<{ readonly id: number }>`SELECT id FROM public.courses`
        // All of Coursekit's objects but those of the steps after the layout before schemas (0015's function, 0016's tables).
        const later = ["coursekit_count_version", "course_revisions", "lesson_revisions", "lesson_progress", "course_progress", "admin_sessions"]
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), allOfCoursekit.filter((name) => !later.includes(name)))

        yield* Effect.provide(
          Effect.gen(function*() {
            const repo = yield* CourseRepo
            const found = yield* repo.findBySlug("old-course")
            assert.strictEqual(found.id, old!.id as CourseId)
            assert.lengthOf(yield* (yield* LessonRepo).listForViewer(found.id, DateTime.makeUnsafe(0)), 1)
            assert.isTrue(yield* (yield* PurchaseRepo).has(found.id, "user-1" as UserId))
            // Existing records start at version 1 with one revision of their state (0015, 0016).
            assert.strictEqual(found.version, 1)
            const [first, ...none] = yield* repo.revisions(found.id, { cursor: undefined, limit: 10 })
            assert.deepStrictEqual(none, [])
            assert.deepStrictEqual([first!.version, first!.author, first!.autosave], [1, "system", false])
            assert.deepStrictEqual((yield* repo.revision(found.id, first!.revision_id)).record, {
              title: "Old course", description: null, content_html: "<p>old</p>", status: "published", publish_at: null, thumbnail_key: null
            })
            const [oldLesson] = yield* (yield* LessonRepo).list(found.id)
            const lessonRevisions = yield* (yield* LessonRepo).revisions(found.id, oldLesson!.id, { cursor: undefined, limit: 10 })
            assert.deepStrictEqual(lessonRevisions.map((revision) => [revision.version, revision.author]), [[1, "system"]])
            // The identity went with its table: the next id follows the old ones.
            const next = yield* repo.insert({ ...publishedNow, title: "New course", slugBase: "new-course", content_html: "" })
            assert.isAbove(next.id, found.id)
            // The triggers went too, and find their version row from any session.
            const version = yield* repo.version
            yield* sql`UPDATE coursekit.courses SET title = 'Old course, renamed' WHERE id = ${found.id}`
            assert.notStrictEqual(yield* repo.version, version)
          }),
          coursekitIn(PgSchema.defaultSchema)
        )
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), [])
        assert.deepStrictEqual(yield* coursekitObjectsIn("coursekit"), allOfCoursekit)
        const applied = yield* sql<{ readonly id: number }>`SELECT migration_id AS id FROM coursekit.coursekit_migrations ORDER BY 1`
        assert.deepStrictEqual(applied.map((row) => row.id), Object.keys(migrations).map((key) => Number(key.slice(0, 4))))
        // A second start finds nothing to move and nothing to apply.
        const again = yield* Effect.provide(layerMigrations.pipe(Layer.build, Effect.as("started")), PgSchema.layer(PgSchema.defaultSchema)).pipe(
          Effect.scoped
        )
        assert.strictEqual(again, "started")
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), [])
      }).pipe(Effect.provide(freshDatabase())), 60_000)

    it.effect("an old layout is moved only as far as its own steps made it: a host's table bearing a later step's name stays in public", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // An earlier Coursekit at step 0008, and a host's own `sections` (Coursekit's come at 0009).
        const upTo8 = Object.fromEntries(Object.entries(migrations).filter(([key]) => Number(key.slice(0, 4)) <= 8))
        yield* Migrator.make({})({ loader: Migrator.fromRecord(upTo8), table: migrationsTable }).pipe(
          Effect.provide(PgSchema.layer("public"))
        )
        yield* sql`CREATE TABLE public.sections (id integer PRIMARY KEY, note text)`
        yield* sql`INSERT INTO public.sections VALUES (7, 'the host''s')`
        yield* sql`INSERT INTO courses (title, slug, content_html) VALUES ('At step 8', 'at-step-8', '')`
        yield* Effect.provide(
          Effect.gen(function*() {
            assert.deepStrictEqual(yield* listedTitles, ["At step 8"])
          }),
          coursekitIn(PgSchema.defaultSchema)
        )
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), ["sections"])
        assert.deepStrictEqual(yield* coursekitObjectsIn("coursekit"), allOfCoursekit)
        const hosts = yield* sql<{ readonly row: string }>`SELECT s::text AS row FROM public.sections s`
        assert.deepStrictEqual(hosts.map((row) => row.row), ["(7,\"the host's\")"])
      }).pipe(Effect.provide(freshDatabase())), 60_000)

    it.effect("a public that a current Coursekit runs in (DATABASE_SCHEMA=public) is never taken by an instance of another schema", () =>
      Effect.gen(function*() {
        yield* Effect.provide(writeCourse("In public", "user-p" as UserId), coursekitIn("public"))
        yield* Effect.provide(writeCourse("In tenant_b", "user-b" as UserId), coursekitIn("tenant_b"))
        assert.deepStrictEqual(yield* Effect.provide(listedTitles, coursekitIn("public")), ["In public"])
        assert.deepStrictEqual(yield* Effect.provide(listedTitles, coursekitIn("tenant_b")), ["In tenant_b"])
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), allOfCoursekit)
        // And a default-schema instance starting later does not take it either.
        assert.deepStrictEqual(yield* Effect.provide(listedTitles, coursekitIn(PgSchema.defaultSchema)), [])
        assert.deepStrictEqual(yield* coursekitObjectsIn("public"), allOfCoursekit)
      }).pipe(Effect.provide(freshDatabase())), 60_000)

    it("a schema name outside lower-case letters, digits and _ is refused before anything runs", () => {
      for (const bad of ["Coursekit", "tenant-a", "a.b", "1tenant", "pg_coursekit", "information_schema", "", "x".repeat(64), "a\u0000b", "\"x\""]) {
        assert.throws(() => PgSchema.layer(bad), /is not a schema name Coursekit accepts/, bad)
      }
      for (const good of ["coursekit", "tenant_a", "_staging", "user", "information_schema_2", "x".repeat(63)]) {
        assert.strictEqual(PgSchema.validSchemaName(good), good)
      }
    })
  })
