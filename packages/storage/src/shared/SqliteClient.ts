/**
 * The SQLite client: `effect/sql`'s `SqlClient` over better-sqlite3 with two connections to one file.
 *
 * A client that serialises every statement through one connection under a lock makes a read wait for whatever
 * transaction another request has open (its statements interleave with I/O). Under concurrent requests that
 * queueing dominates the slowest answers (docs/performance.md). Here:
 * - the writer connection runs transactions and every statement that writes, behind a one-permit lock
 *   (`SqlClient.makeSqliteAcquirers`, which also rolls back a transaction whose COMMIT failed);
 * - a read-only connection runs the statements that only read (better-sqlite3's `Statement.readonly`) when no
 *   transaction of the calling fiber is open: WAL lets it read the last committed state while a transaction is
 *   open on the writer, and better-sqlite3 runs each statement to completion synchronously, so it needs no lock;
 * - prepared statements are kept in a plain bounded map per connection.
 * Inside a transaction every statement runs on the writer, so a transaction reads its own writes. An in-memory
 * database cannot be shared by two connections: it gets the writer alone. Statements borrow their connection
 * (`SqlClient.MakeOptions.borrower`), so one costs no scope of its own.
 *
 * Built on public APIs (`SqlClient.make` with our own connections): there is no stable Effect 4 SQLite driver
 * for Node, and a host installs nothing pre-release.
 */
import Sqlite from "better-sqlite3"
import { Effect, Layer, type Scope, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import { resolve } from "node:path"

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
  /** Prepared statements kept per connection. */
  readonly prepareCacheSize?: number
}

/**
 * Both connections'. `cache_size` keeps up to 32 MiB of pages per connection (a negative size is in KiB), where
 * SQLite's default is 2 MiB: a server reading rows by id all over a table of tens of megabytes otherwise reads most
 * of them from the file again, a system call per page, each time. The cache fills only with pages read, and the
 * reader's empties whenever another connection commits (SQLite cannot tell which of its pages changed), so under
 * writes it holds what was read since the last commit.
 */
const PRAGMAS = ["foreign_keys = ON", "busy_timeout = 5000", "synchronous = NORMAL", "cache_size = -32768"]

/**
 * The writer's: WAL, and a checkpoint once the log holds 4,000 pages (16 MiB at SQLite's default page size) rather
 * than SQLite's 1,000. A checkpoint copies the newest version of each page in the log into the database file, so
 * a page written by many commits (the ends of the indexes by time, the search index's own records, the counters)
 * is copied once per checkpoint however many commits wrote it: fewer checkpoints copy fewer pages in all. Each
 * runs in the commit that fills the log, on the writer. Readers find pages in the log through its index whatever
 * its length; the log file keeps its largest size for reuse.
 */
const WRITER_PRAGMAS = ["journal_mode = WAL", "wal_autocheckpoint = 4000"]

type Rows = ReadonlyArray<Record<string, unknown>>
type Transform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
type Connection = SqlConnection.Connection

const sqlError = (message: string, operation: string) => (cause: unknown) =>
  new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation }) })

const executeFailed = sqlError("Failed to execute statement", "execute")

/** Prepared statements of one connection, least recently used dropped first. */
const statementCache = (db: Sqlite.Database, capacity: number) => {
  const cache = new Map<string, Sqlite.Statement>()
  return (sql: string): Sqlite.Statement => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (cache.size >= capacity) {
        const oldest = cache.keys().next()
        if (oldest.done !== true) cache.delete(oldest.value)
      }
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

const rows = (statement: Sqlite.Statement, params: ReadonlyArray<unknown>, transform: Transform): Rows => {
  const found = run(statement, params, false) as Rows
  return transform ? transform(found) : found
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

const attempt = <A>(f: () => A): Effect.Effect<A, SqlError.SqlError> => Effect.try({ try: f, catch: executeFailed })

const noStream = () => Stream.die(new Error("executeStream is not supported by the SQLite client"))

/** A connection's statements: prepared ones from `prepare`, unprepared ones made afresh. */
const connectionOf = (db: Sqlite.Database, prepare: (sql: string) => Sqlite.Statement): Connection => ({
  execute: (sql, params, transform: Transform) => attempt(() => rows(prepare(sql), params, transform)),
  executeRaw: (sql, params) => attempt(() => run(prepare(sql), params, true)),
  executeValues: (sql, params) => attempt(() => values(prepare(sql), params)),
  executeValuesUnprepared: (sql, params) => attempt(() => values(db.prepare(sql), params)),
  executeUnprepared: (sql, params, transform: Transform) => attempt(() => rows(db.prepare(sql), params, transform)),
  executeStream: noStream
})

/**
 * One write lock per database file for the whole process. better-sqlite3 waits for SQLite's file lock synchronously
 * (`busy_timeout`), blocking the event loop: were two clients of one process on the same file to lock separately,
 * one could wait there while the other's open transaction, which needs the event loop to finish, holds the file,
 * and both would stall until the timeout. Sharing the lock makes the second wait as a fiber instead.
 */
const writeLocks = new Map<string, Semaphore.Semaphore>()
const writeLockOf = (filename: string): Semaphore.Semaphore => {
  if (filename === ":memory:") return Semaphore.makeUnsafe(1)
  const key = resolve(filename)
  let lock = writeLocks.get(key)
  if (lock === undefined) {
    lock = Semaphore.makeUnsafe(1)
    writeLocks.set(key, lock)
  }
  return lock
}

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
            for (const pragma of readonly ? PRAGMAS : [...WRITER_PRAGMAS, ...PRAGMAS]) db.pragma(pragma)
            return db
          },
          catch: sqlError(`Failed to open ${options.filename}`, "open")
        }),
        (db) => Effect.sync(() => db.close())
      )
    // The writer first: it switches the file to WAL, which the reader needs.
    const writer = yield* open(false)
    const reader = options.filename === ":memory:" ? undefined : yield* open(true)
    const writerConnection = connectionOf(writer, statementCache(writer, capacity))
    const prepareReader = reader === undefined ? undefined : statementCache(reader, capacity)

    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(writerConnection),
      semaphore: writeLockOf(options.filename),
      isTransaction: () => writer.inTransaction
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

    /**
     * Outside a transaction: a statement that only reads runs on the reader at once; any other waits for the
     * writer's lock, so it can never land inside another fiber's open transaction on the writer.
     */
    const route = <A>(
      sql: string,
      onReader: (statement: Sqlite.Statement) => A,
      onWriter: (connection: Connection) => Effect.Effect<A, SqlError.SqlError>
    ): Effect.Effect<A, SqlError.SqlError> =>
      Effect.suspend(() => {
        const statement = readerStatement(sql)
        return statement === undefined ? acquirers.borrower(onWriter) : attempt(() => onReader(statement))
      })

    const routed: Connection = {
      execute: (sql, params, transform: Transform) =>
        route(sql, (statement) => rows(statement, params, transform), (c) => c.execute(sql, params, transform)),
      executeRaw: (sql, params) =>
        route(sql, (statement) => statement.all(...params) as unknown, (c) => c.executeRaw(sql, params)),
      executeValues: (sql, params) =>
        route(sql, (statement) => values(statement, params), (c) => c.executeValues(sql, params)),
      executeValuesUnprepared: (sql, params) => acquirers.borrower((c) => c.executeValuesUnprepared(sql, params)),
      executeUnprepared: (sql, params, transform) =>
        acquirers.borrower((c) => c.executeUnprepared(sql, params, transform)),
      executeStream: noStream
    }

    return yield* SqlClient.make({
      // Statements outside a transaction borrow the routed connection, which takes the writer's lock itself
      // when it needs the writer; `reserve` and streams lease the writer.
      acquirer: acquirers.acquirer,
      borrower: (f) => f(routed),
      // A transaction holds the lock until its scope closes; IMMEDIATE takes SQLite's write lock at BEGIN, so a
      // transaction never fails half-way on upgrading a read lock when another process writes the same file.
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      isTransaction: acquirers.isTransaction,
      beginTransaction: "BEGIN IMMEDIATE",
      // BEGIN, COMMIT, ROLLBACK and savepoints run on every transaction: a handful of distinct texts, kept
      // prepared like the rest (better-sqlite3 prepares them).
      prepareTransactionControls: true,
      compiler: Statement.makeCompilerSqlite(),
      driver: "better-sqlite3",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/**
 * On SQLite, the connection that writes keeps its temporary structures in memory from now on (`temp_store =
 * MEMORY`); on other databases nothing. What it is for is the statement journal: a statement inside a transaction
 * that changes more pages than SQLite journals in memory (an insert whose triggers write the search index, and its
 * indexes) spills its journal to a temporary file, created and deleted again within the statement, which costs kernel
 * time on every such write. Run once the schema is migrated: in memory, SQLite's sorter never spills either, and a
 * migration that indexes a large table sorts every key; the engine's own writes afterwards are small. `PRAGMA
 * temp_store` reads as read-only, so outside a transaction this client would run it on the read-only connection: it
 * runs in a transaction, which is the writer's.
 */
export const keepWriterTemporariesInMemory: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> = Effect
  .flatMap(SqlClient.SqlClient, (sql): Effect.Effect<void, SqlError.SqlError> =>
    sql.onDialectOrElse({
      sqlite: () => Effect.asVoid(sql.withTransaction(sql`PRAGMA temp_store = MEMORY`)),
      orElse: () => Effect.void
    }))

/** The SQLite `SqlClient` as a layer. */
export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
