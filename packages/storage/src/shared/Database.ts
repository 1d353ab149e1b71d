/**
 * The database a URL names: `file:<path>` or `file::memory:` selects SQLite (WAL, foreign keys on,
 * busy timeout); `postgres://` selects PostgreSQL.
 */
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { mkdirSync } from "node:fs"
import { dirname, resolve } from "node:path"
import * as SqliteClient from "./SqliteClient.js"

export type DatabaseUrl =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }

/** Parses a `SUPPORT_DATABASE_URL` value. */
export const parseDatabaseUrl = (url: string): DatabaseUrl => {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { _tag: "Postgres", url }
  if (url === "file::memory:" || url === ":memory:") return { _tag: "Sqlite", filename: ":memory:" }
  if (url.startsWith("file:")) return { _tag: "Sqlite", filename: resolve(url.slice("file:".length)) }
  return { _tag: "Sqlite", filename: resolve(url) }
}

/** A SQLite database on one file (or in memory): WAL, foreign keys, busy timeout (SqliteClient.ts). */
export const sqliteLayer = (filename: string): Layer.Layer<SqlClient.SqlClient> => {
  if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
  return SqliteClient.layer({ filename }).pipe(Layer.orDie)
}
