/**
 * Knowledge-base search (`q` on the article list) folds diacritics on PostgreSQL as it does on SQLite (FTS5's
 * `unicode61 remove_diacritics 2`): each translation's search document (migration 0015) is made from its text folded
 * by `support_search_fold` (migration 0031; UTF-8 databases only), and the article list folds the query's words the
 * same way, so `cafe` finds `Café` and `café` finds `Cafe`. The trigger function is replaced and every stored
 * document rebuilt. SQLite has nothing to change.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** A translation's search document, from the row named `row`: folded first, then cut into words as in 0015. */
const document = (row: string) =>
  `to_tsvector('simple', regexp_replace(support_search_fold(${row}.title || ' ' || coalesce(${row}.excerpt, '') ||
    ' ' || ${row}.content), '[^[:alnum:]]+', ' ', 'g'))`

const pg = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION kb_translation_text_search_sync() RETURNS trigger
      LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO kb_translation_text_search (article_id, locale, document)
        VALUES (NEW.article_id, NEW.locale, ${document("NEW")})
        ON CONFLICT (article_id, locale) DO UPDATE SET document = excluded.document;
      RETURN NULL;
    END $$`)
    yield* sql.unsafe(`UPDATE kb_translation_text_search s SET document = ${document("t")}
      FROM kb_article_translations t WHERE t.article_id = s.article_id AND t.locale = s.locale`)
  })

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({ pg: () => pg(sql), orElse: () => Effect.void })
})
