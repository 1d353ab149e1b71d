/**
 * One serialisation per resource: a translation's place among its article's translations, so those
 * created by one request keep the request's order (they share `created_at`, and the locale used to break the tie);
 * and on PostgreSQL, event data as `JSON` rather than `JSONB`, which keeps the text as written: `JSONB` reorders
 * object keys, so an event read back showed its resource's fields in another order than every other answer.
 * Events recorded before this migration keep the order `JSONB` gave them.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE kb_article_translations ADD COLUMN position INTEGER NOT NULL DEFAULT 0`)
  yield* sql.onDialectOrElse({
    pg: () => sql.unsafe(`ALTER TABLE events ALTER COLUMN data TYPE JSON USING data::json`),
    orElse: () => Effect.void
  })
})
