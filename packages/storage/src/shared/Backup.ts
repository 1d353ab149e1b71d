/**
 * `support-engine backup`: a consistent copy of a SQLite database taken while servers write to it. `VACUUM INTO`
 * copies what one read transaction sees (the last commit before it began) into a new, compacted file; in WAL mode
 * it blocks no writer and is not restarted by their commits, as the page-by-page backup API would be. The key file
 * that encrypts the database's webhook secrets (SecretsAtRest.ts) is copied beside the copy: a database restored
 * without it cannot decrypt them. PostgreSQL is backed up with its own tools.
 */
import Sqlite from "better-sqlite3"
import { Data, Effect } from "effect"
import { constants, copyFileSync, existsSync } from "node:fs"
import { parseDatabaseUrl } from "./Database.js"

/** Why no backup was written; `message` is for the operator. */
export class BackupFailed extends Data.TaggedError("BackupFailed")<{ readonly message: string }> {}

export interface BackupWritten {
  /** The copy of the database. */
  readonly database: string
  /** The copy of its key file (`<copy>.key`), when the database has one. */
  readonly keyFile: string | null
}

/** How long the copy waits for a lock (a checkpoint or a schema change of another process) before failing. */
const BUSY_TIMEOUT_MS = 5_000

/** Copies the database `url` names to `to` (and its key file to `<to>.key`); `to` must not exist yet. */
export const backupDatabase = (url: string, to: string): Effect.Effect<BackupWritten, BackupFailed> =>
  Effect.gen(function*() {
    const parsed = parseDatabaseUrl(url)
    if (parsed._tag !== "Sqlite") {
      return yield* new BackupFailed({
        message: "backup copies SQLite databases; back up PostgreSQL with pg_dump (docs/operations.md)"
      })
    }
    if (parsed.filename === ":memory:") {
      return yield* new BackupFailed({ message: "an in-memory database has nothing on disk to back up" })
    }
    const source = parsed.filename
    if (!existsSync(source)) return yield* new BackupFailed({ message: `no database at ${source}` })
    const keyFile = `${source}.key`
    const copies = existsSync(keyFile) ? [to, `${to}.key`] : [to]
    for (const path of copies) {
      if (existsSync(path)) return yield* new BackupFailed({ message: `${path} already exists` })
    }
    yield* Effect.acquireUseRelease(
      Effect.try({
        try: () => new Sqlite(source, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }),
        catch: (cause) => new BackupFailed({ message: `could not open ${source}: ${String(cause)}` })
      }),
      (db) =>
        Effect.try({
          try: () => db.prepare("VACUUM INTO ?").run(to),
          catch: (cause) => new BackupFailed({ message: `could not write ${to}: ${String(cause)}` })
        }),
      (db) => Effect.sync(() => db.close())
    )
    if (copies.length === 1) return { database: to, keyFile: null }
    const keyCopy = `${to}.key`
    yield* Effect.try({
      // The key never changes once made; the copy keeps the private mode and never replaces a file.
      try: () => copyFileSync(keyFile, keyCopy, constants.COPYFILE_EXCL),
      catch: (cause) => new BackupFailed({ message: `could not copy the key file to ${keyCopy}: ${String(cause)}` })
    })
    return { database: to, keyFile: keyCopy }
  })
