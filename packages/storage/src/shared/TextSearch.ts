/**
 * Full-text search in SQL (the indexes are migration 0015). Core hands over the query's words (letters and
 * digits only, lower-cased), so they can be written into each dialect's query syntax without escaping: FTS5's
 * `"word"*` terms joined by AND on SQLite, a `word:*` tsquery joined by `&` on PostgreSQL (the `simple`
 * configuration, as the index). Every word is a prefix and all must match.
 */
import type { SqlClient } from "effect/sql"

/** The match expression for `terms` in the current dialect, bound as a parameter. */
export const matchExpression = (sql: SqlClient.SqlClient, terms: ReadonlyArray<string>): string =>
  sql.onDialectOrElse({
    pg: () => terms.map((term) => `${term}:*`).join(" & "),
    orElse: () => terms.map((term) => `"${term}"*`).join(" AND ")
  })
