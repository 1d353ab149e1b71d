/**
 * The passage index AI agents retrieve from, kept by the database in the same transaction as the content:
 * completed text and Q&A training items and article translations. Which sources count (completed items, published
 * articles, the agent's links) is decided when reading, so a failed, unpublished or deleted source leaves the
 * answers at once.
 *
 * SQLite: a passage table filled by triggers on the sources, and an FTS5 index (porter stemming) over it kept by
 * triggers on that table. PostgreSQL: GIN indexes on `tsvector` expressions of the source tables themselves, which
 * PostgreSQL keeps in step with every write.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The searched text of a training item and of a translation, the same expression in the index and the query. */
export const TRAINING_VECTOR = `to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || ` +
  `coalesce(content, '') || ' ' || coalesce(question, '') || ' ' || coalesce(answer, ''))`
export const TRANSLATION_VECTOR = `to_tsvector('english'::regconfig, title || ' ' || content)`

const training = (row: "NEW") =>
  `INSERT INTO ai_passages (workspace_id, source_type, source_id, locale, title, url, body, text)
   SELECT ${row}.workspace_id, 'training_data', ${row}.id, NULL, coalesce(${row}.title, ''), ${row}.source,
     coalesce(${row}.title, '') || ' ' || coalesce(${row}.content, '') || ' ' || coalesce(${row}.question, '') ||
       ' ' || coalesce(${row}.answer, ''),
     coalesce(${row}.content, ${row}.answer, '')
   WHERE ${row}.type IN ('text', 'qa');`
const translation = (row: "NEW") =>
  `INSERT INTO ai_passages (workspace_id, source_type, source_id, locale, title, url, body, text)
   VALUES (${row}.workspace_id, 'kb_article', ${row}.article_id, ${row}.locale, ${row}.title, ${row}.canonical_url,
     ${row}.title || ' ' || ${row}.content, ${row}.content);`

const sqlite = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.unsafe(`CREATE TABLE ai_passages (
      id INTEGER PRIMARY KEY,
      workspace_id TEXT NOT NULL,
      source_type TEXT NOT NULL,
      source_id TEXT NOT NULL,
      locale TEXT,
      title TEXT NOT NULL,
      url TEXT,
      body TEXT NOT NULL,
      text TEXT NOT NULL
    )`)
    yield* sql.unsafe(`CREATE INDEX ai_passages_source ON ai_passages (source_id, locale)`)
    yield* sql.unsafe(
      `CREATE VIRTUAL TABLE ai_passages_fts USING fts5(title, body, content='ai_passages', content_rowid='id',
       tokenize='porter unicode61')`
    )
    yield* sql.unsafe(`CREATE TRIGGER ai_passages_ai AFTER INSERT ON ai_passages BEGIN
      INSERT INTO ai_passages_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_passages_ad AFTER DELETE ON ai_passages BEGIN
      INSERT INTO ai_passages_fts (ai_passages_fts, rowid, title, body) VALUES ('delete', OLD.id, OLD.title, OLD.body);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_training_ai AFTER INSERT ON training_data BEGIN ${training("NEW")} END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_training_au AFTER UPDATE OF type, title, content, question, answer, source
      ON training_data BEGIN
        DELETE FROM ai_passages WHERE source_id = OLD.id;
        ${training("NEW")}
      END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_training_ad AFTER DELETE ON training_data BEGIN
      DELETE FROM ai_passages WHERE source_id = OLD.id;
    END`)
    yield* sql.unsafe(
      `CREATE TRIGGER ai_translation_ai AFTER INSERT ON kb_article_translations BEGIN ${translation("NEW")} END`
    )
    yield* sql.unsafe(`CREATE TRIGGER ai_translation_au AFTER UPDATE OF locale, title, content, canonical_url
      ON kb_article_translations BEGIN
        DELETE FROM ai_passages WHERE source_id = OLD.article_id AND locale = OLD.locale;
        ${translation("NEW")}
      END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_translation_ad AFTER DELETE ON kb_article_translations BEGIN
      DELETE FROM ai_passages WHERE source_id = OLD.article_id AND locale = OLD.locale;
    END`)
    // Content written before this migration.
    yield* sql.unsafe(`INSERT INTO ai_passages (workspace_id, source_type, source_id, locale, title, url, body, text)
      SELECT workspace_id, 'training_data', id, NULL, coalesce(title, ''), source,
        coalesce(title, '') || ' ' || coalesce(content, '') || ' ' || coalesce(question, '') || ' ' ||
          coalesce(answer, ''),
        coalesce(content, answer, '')
      FROM training_data WHERE type IN ('text', 'qa')`)
    yield* sql.unsafe(`INSERT INTO ai_passages (workspace_id, source_type, source_id, locale, title, url, body, text)
      SELECT workspace_id, 'kb_article', article_id, locale, title, canonical_url, title || ' ' || content, content
      FROM kb_article_translations`)
  })

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function*() {
        yield* sql.unsafe(`CREATE INDEX training_data_search ON training_data USING GIN ((${TRAINING_VECTOR}))`)
        yield* sql.unsafe(
          `CREATE INDEX kb_translations_search ON kb_article_translations USING GIN ((${TRANSLATION_VECTOR}))`
        )
      }),
    orElse: () => sqlite(sql)
  })
})
