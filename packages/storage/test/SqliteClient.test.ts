/**
 * The SQLite client's two connections (SqliteClient.ts): reads outside a transaction go to the read-only
 * connection and neither wait for nor see another fiber's open transaction; writes outside a transaction wait
 * for it; a transaction reads its own writes; errors stay SqlErrors. Each holds with tracing on and off.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Tracer } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, Statement } from "effect/sql"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteClient from "../src/shared/SqliteClient.js"
import { StorageLive } from "../src/Storage.js"

/** `use` with a temporary directory, removed afterwards. */
const inTempDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "support-engine-sqlite-client-"))),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const withDatabase = <A, E>(
  filename: (dir: string) => string,
  body: Effect.Effect<A, E, SqlClient.SqlClient>
) =>
  inTempDir((dir) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
      yield* sql`INSERT INTO notes (id, body) VALUES (1, 'committed')`
      return yield* body
    }).pipe(Effect.provide(SqliteClient.layer({ filename: filename(dir) })))
  )

const onFile = (dir: string) => join(dir, "client.db")

/** Opens a transaction that inserts row 2 and then waits for `release` before committing. */
const openTransaction = (
  sql: SqlClient.SqlClient,
  inserted: Deferred.Deferred<void>,
  release: Deferred.Deferred<void>
) =>
  sql.withTransaction(
    Effect.gen(function*() {
      yield* sql`INSERT INTO notes (id, body) VALUES (2, 'pending')`
      yield* Deferred.succeed(inserted, undefined)
      yield* Deferred.await(release)
    })
  ).pipe(Effect.forkChild)

const collectSpans = (names: Array<string>) =>
  Effect.map(Effect.tracer, (tracer) =>
    Tracer.make({
      span: (options) => {
        names.push(options.name)
        return tracer.span(options)
      },
      context: tracer.context
    }))

for (const untraced of [false, true]) {
  describe(untraced ? "SqliteClient, tracing off" : "SqliteClient", () => {
    const run = <A, E>(filename: (dir: string) => string, body: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      withDatabase(filename, Effect.withTracerEnabled(body, !untraced))

    it.live("a read outside a transaction answers at once and sees only committed rows", () =>
      run(
        onFile,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const inserted = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const writer = yield* openTransaction(sql, inserted, release)
          yield* Deferred.await(inserted)
          // The transaction is open and holds the writer: the read must not wait for it (it would hang here).
          const during = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
          assert.deepStrictEqual(during.map((r) => r.id), [1])
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(writer)
          const after = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
          assert.deepStrictEqual(after.map((r) => r.id), [1, 2])
        })
      ))

    it.live("a write outside a transaction waits for the open transaction instead of joining it", () =>
      run(
        onFile,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const inserted = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const writer = yield* openTransaction(sql, inserted, release)
          yield* Deferred.await(inserted)
          const write = yield* sql`INSERT INTO notes (id, body) VALUES (3, 'outside')`.pipe(Effect.forkChild)
          // Unblocked, the forked write would finish within a few scheduler turns (better-sqlite3 is synchronous).
          for (let i = 0; i < 10; i++) yield* Effect.yieldNow
          assert.isTrue(write.pollUnsafe() === undefined, "the write went ahead while the transaction was open")
          // Roll the transaction back: had the write joined it, row 3 would vanish with it.
          yield* Fiber.interrupt(writer)
          yield* Fiber.join(write)
          const rows = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
          assert.deepStrictEqual(rows.map((r) => r.id), [1, 3])
        })
      ))

    it.live("a transaction reads its own writes; a failed statement is a SqlError and rolls back", () =>
      run(
        onFile,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const exit = yield* sql.withTransaction(
            Effect.gen(function*() {
              yield* sql`INSERT INTO notes (id, body) VALUES (4, 'mine')`
              const seen = yield* sql<{ body: string }>`SELECT body FROM notes WHERE id = 4`
              assert.deepStrictEqual(seen.map((r) => r.body), ["mine"])
              yield* sql`INSERT INTO notes (id, body) VALUES (1, 'duplicate')`
            })
          ).pipe(Effect.exit)
          assert.isTrue(Exit.isFailure(exit))
          if (Exit.isFailure(exit)) {
            const [reason] = exit.cause.reasons
            assert.strictEqual(exit.cause.reasons.length, 1)
            assert.strictEqual(reason !== undefined && Cause.isFailReason(reason) && reason.error._tag, "SqlError")
          }
          const rows = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
          assert.deepStrictEqual(rows.map((r) => r.id), [1])
          const bad = yield* sql`SELECT nope FROM notes`.pipe(Effect.flip)
          assert.strictEqual(bad._tag, "SqlError")
        })
      ))

    it.live("an in-memory database runs everything on its one connection", () =>
      run(
        () => ":memory:",
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql.withTransaction(sql`INSERT INTO notes (id, body) VALUES (5, 'memory')`)
          const rows = yield* sql<{ id: number }>`SELECT id FROM notes ORDER BY id`
          assert.deepStrictEqual(rows.map((r) => r.id), [1, 5])
        })
      ))
  })
}

describe("SqliteClient statements and tracing (core's Tracing.ts)", () => {
  it.live("with tracing on a statement makes its span (named after the client: sqlite); with it off, none", () =>
    withDatabase(
      onFile,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const names: Array<string> = []
        const tracer = yield* collectSpans(names)
        const read = sql<{ id: number }>`SELECT id FROM notes`.pipe(Effect.withTracer(tracer))
        assert.deepStrictEqual((yield* read).map((r) => r.id), [1])
        assert.deepStrictEqual(names, ["sqlite"])
        assert.deepStrictEqual((yield* Effect.withTracerEnabled(read, false)).map((r) => r.id), [1])
        yield* Effect.withTracerEnabled(sql.withTransaction(read), false)
        assert.deepStrictEqual(names, ["sqlite"])
      })
    ))

  it.live("with tracing off a statement under a row transformer still runs the transformed statement", () =>
    withDatabase(
      onFile,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: number }>`SELECT id FROM notes`.pipe(
          Effect.provideService(
            Statement.CurrentTransformer,
            (_statement, constructor) => Effect.succeed(constructor`SELECT 7 AS id`)
          ),
          Effect.withTracerEnabled(false)
        )
        assert.deepStrictEqual(rows.map((r) => r.id), [7])
      })
    ))
})

describe("SqliteClient settings", () => {
  it.live("after keepWriterTemporariesInMemory the writer keeps statement journals in memory; the reader is untouched", () =>
    withDatabase(
      onFile,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const tempStore = sql<{ temp_store: number }>`PRAGMA temp_store`
        // temp_store: 0 is SQLite's default (files), 2 is MEMORY. Inside a transaction a statement runs on the
        // writer; outside one a read runs on the read-only connection.
        const onWriter = sql.withTransaction(tempStore)
        assert.deepStrictEqual(yield* onWriter, [{ temp_store: 0 }], "migrations run with the default")
        yield* SqliteClient.keepWriterTemporariesInMemory
        assert.deepStrictEqual(yield* onWriter, [{ temp_store: 2 }])
        assert.deepStrictEqual(yield* tempStore, [{ temp_store: 0 }])
      })
    ))

  it.live("storage on a SQLite file migrates, then keeps the writer's statement journals in memory", () =>
    inTempDir((dir) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql.withTransaction(sql<{ temp_store: number }>`PRAGMA temp_store`)
        assert.deepStrictEqual(rows, [{ temp_store: 2 }])
      }).pipe(Effect.provide(StorageLive(`file:${onFile(dir)}`)))
    ))
})

describe("SqliteClient page cache", () => {
  it.live("both connections keep up to 32 MiB of pages, not SQLite's 2 MiB", () =>
    withDatabase(
      onFile,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // Outside a transaction a read runs on the read-only connection; inside one, on the writer.
        const reader = yield* sql<{ cache_size: number }>`PRAGMA cache_size`
        const writer = yield* sql.withTransaction(sql<{ cache_size: number }>`PRAGMA cache_size`)
        assert.deepStrictEqual([reader, writer], [[{ cache_size: -32768 }], [{ cache_size: -32768 }]])
      })
    ))
})

describe("SqliteClient write-ahead log", () => {
  /** Frames in the log file: its size past the 32-byte header, over a frame's (a 24-byte header and a page). */
  const framesIn = (file: string) => (statSync(`${file}-wal`).size - 32) / (24 + 4096)

  it.live("commits fill the log up to 4,000 pages before one of them checkpoints it (SQLite's default is 1,000)", () =>
    inTempDir((dir) =>
      Effect.gen(function*() {
        const file = onFile(dir)
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`
        // Each commit writes at least one page of its own: a row of 3,000 bytes fills a page of its own.
        const commitPages = (count: number) =>
          Effect.forEach(
            Array.from({ length: count }, (_, i) => i),
            () => sql`INSERT INTO pages (body) VALUES (zeroblob(3000))`,
            { discard: true }
          )
        yield* commitPages(2_500)
        // Past SQLite's default the log would have been checkpointed and reused from its start, staying near 1,000.
        const beforeCheckpoint = framesIn(file)
        assert.isAbove(beforeCheckpoint, 2_500)
        yield* commitPages(2_500)
        // Past 4,000 a commit checkpointed the log, and later commits write it again from its start.
        assert.isBelow(framesIn(file), 4_100)
        const [row] = yield* sql<{ readonly n: number }>`SELECT COUNT(*) AS n FROM pages`
        assert.strictEqual(row!.n, 5_000)
      }).pipe(Effect.provide(SqliteClient.layer({ filename: onFile(dir) })))
    ))
})

describe("SqliteClient, two clients of one process on one file", () => {
  it.live("a write of the second waits as a fiber for the first's open transaction, instead of blocking the process on the file lock", () =>
    inTempDir((dir) =>
      Effect.gen(function*() {
        const filename = onFile(dir)
        const first = yield* SqliteClient.make({ filename })
        const second = yield* SqliteClient.make({ filename })
        yield* first`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
        const inserted = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const transaction = yield* openTransaction(first, inserted, release)
        yield* Deferred.await(inserted)
        const write = yield* second`INSERT INTO notes (id, body) VALUES (3, 'second')`.pipe(Effect.forkChild)
        yield* Effect.yieldNow
        // Had the second client gone to SQLite's lock, it would have failed with SQLITE_BUSY by now.
        assert.isUndefined(write.pollUnsafe())
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(transaction)
        yield* Fiber.join(write)
        const rows = yield* second<{ id: number }>`SELECT id FROM notes ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => r.id), [2, 3])
      }).pipe(Effect.provide(Reactivity.layer))
    ))
})
