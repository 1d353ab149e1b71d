/**
 * Text search: one search document per searchable row, kept by triggers in the same transaction as every
 * write to that row, in tables named for their purpose (`*_text_search`), apart from any other index.
 *
 * - customers: first and last name, email, phone, and the phone's digits alone (so `0612` finds `+31 6 12...`);
 * - conversations: the subject; messages: their content (a conversation matches through either);
 * - knowledge-base translations: title, excerpt and content (an article matches through any of its translations).
 *
 * SQLite: an FTS5 table per source (`unicode61`, diacritics folded) and a key table linking its rowids to the
 * source rows, since a source row's own rowid may change on VACUUM. PostgreSQL: a table per source with a
 * `tsvector` (the `simple` configuration: no stemming, as on SQLite) and a GIN index, rows deleted by cascade.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

interface Source {
  /** The search table: `<name>` (and `<name>_keys` on SQLite). */
  readonly name: string
  readonly table: string
  /** Key columns of the source row, with their SQL types per dialect. */
  readonly keys: ReadonlyArray<readonly [column: string, pg: string]>
  /** Extra columns copied into the key/search table (a message's conversation). */
  readonly extra?: ReadonlyArray<readonly [column: string, pg: string]>
  /** The columns whose change re-indexes the row. */
  readonly watch: ReadonlyArray<string>
  /** The document's text, from a row named `row`. */
  readonly text: (row: string, digits: (expression: string) => string) => string
}

const sources: ReadonlyArray<Source> = [
  {
    name: "customer_text_search",
    table: "customers",
    keys: [["id", "UUID"]],
    watch: ["first_name", "last_name", "email", "phone"],
    text: (r, digits) =>
      `coalesce(${r}.first_name, '') || ' ' || coalesce(${r}.last_name, '') || ' ' || coalesce(${r}.email, '') ||
       ' ' || coalesce(${r}.phone, '') || ' ' || ${digits(`coalesce(${r}.phone, '')`)}`
  },
  {
    name: "conversation_text_search",
    table: "conversations",
    keys: [["id", "UUID"]],
    watch: ["subject"],
    text: (r) => `coalesce(${r}.subject, '')`
  },
  {
    name: "message_text_search",
    table: "messages",
    keys: [["id", "UUID"]],
    extra: [["conversation_id", "UUID"]],
    watch: ["content"],
    text: (r) => `${r}.content`
  },
  {
    name: "kb_translation_text_search",
    table: "kb_article_translations",
    keys: [["article_id", "UUID"], ["locale", "TEXT"]],
    watch: ["title", "excerpt", "content"],
    text: (r) => `${r}.title || ' ' || coalesce(${r}.excerpt, '') || ' ' || ${r}.content`
  }
]

const sqliteDigits = (expression: string) =>
  ["' '", "'-'", "'+'", "'('", "')'", "'.'", "'/'"].reduce((e, ch) => `replace(${e}, ${ch}, '')`, expression)
const pgDigits = (expression: string) => `regexp_replace(${expression}, '[^0-9]', '', 'g')`

const sqlite = (source: Source): ReadonlyArray<string> => {
  const { name, table } = source
  const columns = [...source.keys, ...(source.extra ?? [])].map(([c]) => c)
  const keyMatch = (row: string) => source.keys.map(([c]) => `${c} = ${row}.${c}`).join(" AND ")
  const rowidOf = (row: string) => `(SELECT search_rowid FROM ${name}_keys WHERE ${keyMatch(row)})`
  return [
    `CREATE VIRTUAL TABLE ${name} USING fts5(document, tokenize = 'unicode61 remove_diacritics 2')`,
    `CREATE TABLE ${name}_keys (search_rowid INTEGER PRIMARY KEY, ${
      columns.map((c) => `${c} TEXT NOT NULL`).join(", ")
    },
      UNIQUE (${source.keys.map(([c]) => c).join(", ")}))`,
    `INSERT INTO ${name}_keys (${columns.join(", ")}) SELECT ${columns.join(", ")} FROM ${table}`,
    `INSERT INTO ${name} (rowid, document) SELECT k.search_rowid, ${source.text("t", sqliteDigits)}
      FROM ${table} t JOIN ${name}_keys k ON ${source.keys.map(([c]) => `k.${c} = t.${c}`).join(" AND ")}`,
    `CREATE TRIGGER ${name}_insert AFTER INSERT ON ${table} BEGIN
      INSERT INTO ${name} (document) VALUES (${source.text("new", sqliteDigits)});
      INSERT INTO ${name}_keys (search_rowid, ${columns.join(", ")})
        VALUES (last_insert_rowid(), ${columns.map((c) => `new.${c}`).join(", ")});
    END`,
    `CREATE TRIGGER ${name}_update AFTER UPDATE OF ${source.watch.join(", ")} ON ${table} BEGIN
      UPDATE ${name} SET document = ${source.text("new", sqliteDigits)} WHERE rowid = ${rowidOf("new")};
    END`,
    `CREATE TRIGGER ${name}_delete AFTER DELETE ON ${table} BEGIN
      DELETE FROM ${name} WHERE rowid = ${rowidOf("old")};
      DELETE FROM ${name}_keys WHERE ${keyMatch("old")};
    END`
  ]
}

const pg = (source: Source): ReadonlyArray<string> => {
  const { name, table } = source
  const keys = source.keys.map(([c]) => c)
  const columns = [...source.keys, ...(source.extra ?? [])]
  // Every run of other characters separates words, as FTS5's unicode61 does: otherwise PostgreSQL's parser keeps
  // `ada@example.com` or `order-1042` as one token, and `example` or `1042` would not find them.
  const document = (row: string) =>
    `to_tsvector('simple', regexp_replace(${source.text(row, pgDigits)}, '[^[:alnum:]]+', ' ', 'g'))`
  return [
    `CREATE TABLE ${name} (${columns.map(([c, type]) => `${c} ${type} NOT NULL`).join(", ")},
      document TSVECTOR NOT NULL, PRIMARY KEY (${keys.join(", ")}),
      FOREIGN KEY (${keys.join(", ")}) REFERENCES ${table} (${keys.join(", ")}) ON DELETE CASCADE)`,
    `CREATE INDEX ${name}_document ON ${name} USING GIN (document)`,
    `INSERT INTO ${name} (${columns.map(([c]) => c).join(", ")}, document)
      SELECT ${columns.map(([c]) => `t.${c}`).join(", ")}, ${document("t")} FROM ${table} t`,
    `CREATE FUNCTION ${name}_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${name} (${columns.map(([c]) => c).join(", ")}, document)
        VALUES (${columns.map(([c]) => `NEW.${c}`).join(", ")}, ${document("NEW")})
        ON CONFLICT (${keys.join(", ")}) DO UPDATE SET document = excluded.document;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER ${name}_sync AFTER INSERT OR UPDATE OF ${source.watch.join(", ")} ON ${table}
      FOR EACH ROW EXECUTE FUNCTION ${name}_sync()`
  ]
}

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({ pg: () => sources.flatMap(pg), orElse: () => sources.flatMap(sqlite) })
  for (const statement of statements) yield* sql.unsafe(statement)
})
