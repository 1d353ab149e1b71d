/**
 * Full-text search in SQL (the indexes are migration 0015). Core hands over the query's words (letters and
 * digits only, lower-cased), so they can be written into each dialect's query syntax without escaping: FTS5's
 * `"word"*` terms joined by AND on SQLite, a `word:*` tsquery joined by `&` on PostgreSQL (the `simple`
 * configuration, as the index). Every word is a prefix and all must match.
 *
 * The passage index also follows the content's language where the database can stem it (migration 0031).
 */
import type { SqlClient } from "effect/sql"

/** The match expression for `terms` in the current dialect, bound as a parameter. */
export const matchExpression = (sql: SqlClient.SqlClient, terms: ReadonlyArray<string>): string =>
  sql.onDialectOrElse({
    pg: () => terms.map((term) => `${term}:*`).join(" & "),
    orElse: () => terms.map((term) => `"${term}"*`).join(" AND ")
  })

/** The language of a BCP-47 locale: its primary subtag, lower-cased ("pt-BR" is "pt"); none without a locale. */
export const language = (locale: string | null | undefined): string | null => {
  const primary = locale?.trim().toLowerCase().split(/[-_]/)[0]
  return primary === undefined || primary === "" ? null : primary
}

/** SQLite's FTS5 stems one language, English (`porter`); the others are searched by their words alone. */
export const SQLITE_STEMMED = "en"
