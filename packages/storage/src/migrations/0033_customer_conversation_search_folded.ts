/**
 * Customer and conversation search (`q`) fold diacritics on PostgreSQL as they do on SQLite (FTS5's `unicode61
 * remove_diacritics 2`), as article search does since migration 0032: each customer's, conversation's and message's
 * search document (migration 0015) is made from its text folded by `support_search_fold` (migration 0031; UTF-8
 * databases only), and the customer and conversation lists fold the query's words the same way, so `cafe` finds
 * `Café` and `café` finds `Cafe`. The trigger functions are replaced and every stored document rebuilt. SQLite has
 * nothing to change.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

interface Source {
  /** The search table of migration 0015, keyed by its source row's `id`. */
  readonly name: string
  readonly table: string
  /** The columns copied from the source row besides `id` (a message's conversation). */
  readonly extra: ReadonlyArray<string>
  /** The document's text, from a row named `row`, as in migration 0015. */
  readonly text: (row: string) => string
}

const sources: ReadonlyArray<Source> = [
  {
    name: "customer_text_search",
    table: "customers",
    extra: [],
    text: (r) =>
      `coalesce(${r}.first_name, '') || ' ' || coalesce(${r}.last_name, '') || ' ' || coalesce(${r}.email, '') ||
       ' ' || coalesce(${r}.phone, '') || ' ' || regexp_replace(coalesce(${r}.phone, ''), '[^0-9]', '', 'g')`
  },
  { name: "conversation_text_search", table: "conversations", extra: [], text: (r) => `coalesce(${r}.subject, '')` },
  { name: "message_text_search", table: "messages", extra: ["conversation_id"], text: (r) => `${r}.content` }
]

/** A row's search document: its text folded first, then cut into words as in migration 0015. */
const document = (source: Source, row: string) =>
  `to_tsvector('simple', regexp_replace(support_search_fold(${source.text(row)}), '[^[:alnum:]]+', ' ', 'g'))`

const pg = (sql: SqlClient.SqlClient, source: Source) =>
  Effect.gen(function*() {
    const { name, table } = source
    const columns = ["id", ...source.extra]
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION ${name}_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${name} (${columns.join(", ")}, document)
        VALUES (${columns.map((c) => `NEW.${c}`).join(", ")}, ${document(source, "NEW")})
        ON CONFLICT (id) DO UPDATE SET document = excluded.document;
      RETURN NULL;
    END $$`)
    yield* sql.unsafe(`UPDATE ${name} s SET document = ${document(source, "t")} FROM ${table} t WHERE t.id = s.id`)
  })

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => Effect.forEach(sources, (source) => pg(sql, source), { discard: true }),
    orElse: () => Effect.void
  })
})
