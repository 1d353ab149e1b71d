/**
 * The SQLite client: `@effect/sql`'s `SqlClient` over better-sqlite3 with two connections to one file.
 *
 * `@effect/sql-sqlite-node` serialises every statement through one connection under a lock, so a read waits
 * for whatever transaction another request has open (its statements interleave with I/O), and each statement
 * also pays an Effect `Cache` lookup for its prepared form. Under 50 concurrent requests that queueing showed as a
 * multi-second p99 (docs/performance.md). Here:
 * - the writer connection runs transactions and every statement that writes, behind a one-permit lock, as before;
 * - a read-only connection runs the statements that only read (better-sqlite3's `Statement.readonly`) when no
 *   transaction of the calling fiber is open: WAL lets it read the last committed state while a transaction is
 *   open on the writer, and better-sqlite3 runs each statement to completion synchronously, so it needs no lock;
 * - prepared statements are kept in a plain bounded map per connection.
 * Inside a transaction every statement runs on the writer, so a transaction reads its own writes. An in-memory
 * database cannot be shared by two connections: it gets the writer alone. With tracing off, statements skip
 * `@effect/sql`'s span and scope (DirectStatements.ts, a seam of its own).
 *
 * A speed seam on public APIs (`SqlClient.make` with our own connections); the stock part it replaces is
 * `@effect/sql-sqlite-node`, against which `pnpm bench --seams` measures it.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import Sqlite from "better-sqlite3"
import { Effect, FiberRef, Layer, Scope } from "effect"
import { directStatements, DirectStatementsSeam } from "./DirectStatements.js"

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
  /** Prepared statements kept per connection. */
  readonly prepareCacheSize?: number
}

const PRAGMAS = ["foreign_keys = ON", "busy_timeout = 5000", "synchronous = NORMAL"]

type Rows = ReadonlyArray<Record<string, unknown>>
type Transform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const sqlError = (message: string) => (cause: unknown) => new SqlError.SqlError({ cause, message })

/** Prepared statements of one connection, least recently used dropped first. */
const statementCache = (db: Sqlite.Database, capacity: number) => {
  const cache = new Map<string, Sqlite.Statement>()
  return (sql: string): Sqlite.Statement => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (cache.size >= capacity) cache.delete(cache.keys().next().value!)
    } else {
      cache.delete(sql)
    }
    cache.set(sql, statement)
    return statement
  }
}

/** Rows of a statement that returns rows; for one that does not, its run info when `raw`, else no rows. */
const run = (statement: Sqlite.Statement, params: ReadonlyArray<unknown>, raw: boolean): unknown => {
  if (statement.reader) return statement.all(...params)
  const info = statement.run(...params)
  return raw ? info : []
}

const values = (statement: Sqlite.Statement, params: ReadonlyArray<unknown>): ReadonlyArray<ReadonlyArray<unknown>> => {
  if (!statement.reader) {
    statement.run(...params)
    return []
  }
  try {
    return statement.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
  } finally {
    statement.raw(false)
  }
}

const noStream = () => Effect.dieMessage("executeStream is not supported by the SQLite client")

export const make = (
  options: SqliteOptions
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const capacity = options.prepareCacheSize ?? 500
    const open = (readonly: boolean) =>
      Effect.acquireRelease(
        Effect.try({
          try: () => {
            const db = new Sqlite(options.filename, { readonly })
            if (!readonly) db.pragma("journal_mode = WAL")
            for (const pragma of PRAGMAS) db.pragma(pragma)
            return db
          },
          catch: sqlError(`Failed to open ${options.filename}`)
        }),
        (db) => Effect.sync(() => db.close())
      )
    // The writer first: it switches the file to WAL, which the reader needs.
    const writer = yield* open(false)
    const reader = options.filename === ":memory:" ? undefined : yield* open(true)
    const prepareWriter = statementCache(writer, capacity)
    const prepareReader = reader === undefined ? undefined : statementCache(reader, capacity)
    const lock = yield* Effect.makeSemaphore(1)

    const onWriter = <A>(f: () => A): Effect.Effect<A, SqlError.SqlError> =>
      Effect.try({ try: f, catch: sqlError("Failed to execute statement") })

    /** The connection a transaction holds: the writer, every statement. */
    const writerConnection: Connection = {
      execute: (sql, params, transform: Transform) =>
        onWriter(() => {
          const rows = run(prepareWriter(sql), params, false) as Rows
          return transform ? transform(rows) : rows
        }),
      executeRaw: (sql, params) => onWriter(() => run(prepareWriter(sql), params, true)),
      executeValues: (sql, params) => onWriter(() => values(prepareWriter(sql), params)),
      // BEGIN, COMMIT, ROLLBACK and savepoints come this way, on every transaction: a handful of distinct texts,
      // so they are kept prepared like the rest.
      executeUnprepared: (sql, params, transform: Transform) =>
        onWriter(() => {
          const rows = run(prepareWriter(sql), params ?? [], false) as Rows
          return transform ? transform(rows) : rows
        }),
      executeStream: noStream
    }

    /**
     * Outside a transaction: a statement that only reads runs on the reader at once; one that writes waits for
     * the lock, so it can never land inside another fiber's open transaction on the writer.
     */
    const route = <A>(
      sql: string,
      onReader: (statement: Sqlite.Statement) => A,
      onWriterLocked: Effect.Effect<A, SqlError.SqlError>
    ): Effect.Effect<A, SqlError.SqlError> =>
      Effect.suspend(() => {
        const statement = readerStatement(sql)
        return statement === undefined
          ? lock.withPermits(1)(onWriterLocked)
          : Effect.try({ try: () => onReader(statement), catch: sqlError("Failed to execute statement") })
      })

    /** The reader's prepared form of `sql` when it only reads; otherwise the writer decides. */
    const readerStatement = (sql: string): Sqlite.Statement | undefined => {
      if (prepareReader === undefined) return undefined
      try {
        const statement = prepareReader(sql)
        return statement.readonly ? statement : undefined
      } catch {
        // Not preparable read-only (say, a table a migration created after the reader read the schema): the
        // writer prepares it, and reports the error if it is one.
        return undefined
      }
    }

    const routed: Connection = {
      execute: (sql, params, transform: Transform) =>
        route(
          sql,
          (statement) => {
            const rows = statement.all(...params) as Rows
            return transform ? transform(rows) : rows
          },
          writerConnection.execute(sql, params, transform)
        ),
      executeRaw: (sql, params) =>
        route(sql, (statement) => statement.all(...params) as unknown, writerConnection.executeRaw(sql, params)),
      executeValues: (sql, params) =>
        route(sql, (statement) => values(statement, params), writerConnection.executeValues(sql, params)),
      executeUnprepared: (sql, params, transform) =>
        lock.withPermits(1)(writerConnection.executeUnprepared(sql, params, transform)),
      executeStream: noStream
    }

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(routed),
      // A transaction holds the lock until its scope closes; IMMEDIATE takes SQLite's write lock at BEGIN, so a
      // transaction never fails half-way on upgrading a read lock when another process writes the same file.
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.as(
          Effect.zipRight(
            restore(lock.take(1)),
            Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, lock.release(1)))
          ),
          writerConnection
        )
      ),
      beginTransaction: "BEGIN IMMEDIATE",
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })
    return (yield* FiberRef.get(DirectStatementsSeam)) ? directStatements(client, routed) : client
  })

/** The SQLite `SqlClient` as a layer. */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
