/**
 * The passage index follows each passage's language where the database can stem it. Every passage is also
 * searchable by its words alone, diacritics folded, so a question in another language (or one without a language)
 * still finds the words it shares with the content. Training items carry no language: their words, and their
 * English stems (English is the one language both databases stem) for English questions.
 *
 * PostgreSQL: `support_search_config(locale)` names the text search configuration of a locale's language, among
 * those the server has (read from `pg_ts_config` here), else `simple`. The GIN indexes of migration 0016 are
 * rebuilt on the folded words (`simple`), translations gain one on their stems in their configuration, and training
 * items one on their English stems.
 *
 * SQLite: FTS5 stems English only (`porter`); the single porter index of migration 0016 becomes two external
 * content tables over `ai_passages`: `ai_passages_words` (every passage, `unicode61`, diacritics folded) and
 * `ai_passages_english` (English translations and training items, `porter` over the same tokenizer), both kept by
 * triggers on `ai_passages` and filled here from the rows already there.
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"

/**
 * PostgreSQL's stemming text search configurations by language, as the server ships them (`pg_ts_config`). A
 * language is stemmed only when its configuration exists on the server; every other language, and content without
 * one, is searched by its words alone (`simple`).
 */
const PG_CONFIGS: Readonly<Record<string, string>> = {
  ar: "arabic",
  hy: "armenian",
  eu: "basque",
  ca: "catalan",
  da: "danish",
  nl: "dutch",
  en: "english",
  fi: "finnish",
  fr: "french",
  de: "german",
  el: "greek",
  hi: "hindi",
  hu: "hungarian",
  id: "indonesian",
  ga: "irish",
  it: "italian",
  lt: "lithuanian",
  ne: "nepali",
  no: "norwegian",
  nb: "norwegian",
  nn: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  es: "spanish",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  yi: "yiddish"
}

const column = (row: string, name: string) => row === "" ? name : `${row}.${name}`

const trainingText = (row: string) =>
  ["title", "content", "question", "answer"].map((c) => `coalesce(${column(row, c)}, '')`).join(" || ' ' || ")
const translationText = (row: string) => `${column(row, "title")} || ' ' || ${column(row, "content")}`
const words = (text: string) => `to_tsvector('simple'::regconfig, support_search_fold(${text}))`

/**
 * The searched vectors (PostgreSQL), the same expressions in the indexes and the queries; `row` qualifies the
 * columns. A training item has its words and its English stems; a translation its words and its stems in its
 * language's configuration.
 */
export const trainingWords = (row: string) => words(trainingText(row))
export const trainingStems = (row: string) => `to_tsvector('pg_catalog.english'::regconfig, ${trainingText(row)})`
export const translationWords = (row: string) => words(translationText(row))
export const translationStems = (row: string) =>
  `to_tsvector(support_search_config(${column(row, "locale")}), ${translationText(row)})`

/** A locale is English (SQLite's `porter` index) when its primary subtag is `en`. */
const english = (locale: string) =>
  `(lower(substr(trim(${locale}), 1, 2)) = 'en' AND ` +
  `(length(trim(${locale})) = 2 OR substr(trim(${locale}), 3, 1) IN ('-', '_')))`

/** The passages of SQLite's English index: English translations and training items (see `trainingStems`). */
const englishIndexed = (row: string) =>
  `(${column(row, "source_type")} = 'training_data' OR ${english(column(row, "locale"))})`

const Configs = Schema.Array(Schema.Struct({ cfgname: Schema.String }))
const Encoding = Schema.Array(Schema.Struct({ server_encoding: Schema.String }))

const pg = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const configs = yield* Effect.flatMap(
      sql.unsafe(`SELECT cfgname FROM pg_ts_config WHERE cfgnamespace = 'pg_catalog'::regnamespace`),
      Schema.decodeUnknownEffect(Configs)
    )
    const installed = new Set(configs.map((r) => r.cfgname))
    const cases = Object.entries(PG_CONFIGS).filter(([, config]) => installed.has(config))
      .map(([lang, config]) => `WHEN '${lang}' THEN 'pg_catalog.${config}'::regconfig`).join(" ")
    yield* sql.unsafe(`CREATE FUNCTION support_search_config(locale TEXT) RETURNS regconfig
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT CASE lower(split_part(replace(trim(locale), '_', '-'), '-', 1)) ${cases}
        ELSE 'pg_catalog.simple'::regconfig END $$`)
    // Folding needs Unicode normalization, which PostgreSQL offers on UTF-8 databases only.
    const [encoding] = yield* Effect.flatMap(sql.unsafe(`SHOW server_encoding`), Schema.decodeUnknownEffect(Encoding))
    const fold = encoding?.server_encoding === "UTF8"
      ? `regexp_replace(normalize(text, NFD), '[\\u0300-\\u036f]', '', 'g')`
      : `text`
    yield* sql.unsafe(`CREATE FUNCTION support_search_fold(text TEXT) RETURNS TEXT
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT ${fold} $$`)
    yield* sql.unsafe(`DROP INDEX training_data_search`)
    yield* sql.unsafe(`DROP INDEX kb_translations_search`)
    yield* sql.unsafe(`CREATE INDEX training_data_search ON training_data USING GIN ((${trainingWords("")}))`)
    yield* sql.unsafe(`CREATE INDEX training_data_stems ON training_data USING GIN ((${trainingStems("")}))`)
    yield* sql.unsafe(
      `CREATE INDEX kb_translations_search ON kb_article_translations USING GIN ((${translationWords("")}))`
    )
    yield* sql.unsafe(
      `CREATE INDEX kb_translations_stems ON kb_article_translations USING GIN ((${translationStems("")}))`
    )
  })

const sqlite = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql.unsafe(`DROP TRIGGER ai_passages_ai`)
    yield* sql.unsafe(`DROP TRIGGER ai_passages_ad`)
    yield* sql.unsafe(`DROP TABLE ai_passages_fts`)
    yield* sql.unsafe(`CREATE VIRTUAL TABLE ai_passages_words USING fts5(title, body, content='ai_passages',
      content_rowid='id', tokenize='unicode61 remove_diacritics 2')`)
    yield* sql.unsafe(`CREATE VIRTUAL TABLE ai_passages_english USING fts5(title, body, content='ai_passages',
      content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`)
    yield* sql.unsafe(`CREATE TRIGGER ai_passages_ai AFTER INSERT ON ai_passages BEGIN
      INSERT INTO ai_passages_words (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
      INSERT INTO ai_passages_english (rowid, title, body) SELECT NEW.id, NEW.title, NEW.body
        WHERE ${englishIndexed("NEW")};
    END`)
    yield* sql.unsafe(`CREATE TRIGGER ai_passages_ad AFTER DELETE ON ai_passages BEGIN
      INSERT INTO ai_passages_words (ai_passages_words, rowid, title, body)
        VALUES ('delete', OLD.id, OLD.title, OLD.body);
      INSERT INTO ai_passages_english (ai_passages_english, rowid, title, body)
        SELECT 'delete', OLD.id, OLD.title, OLD.body WHERE ${englishIndexed("OLD")};
    END`)
    yield* sql.unsafe(`INSERT INTO ai_passages_words (rowid, title, body) SELECT id, title, body FROM ai_passages`)
    yield* sql.unsafe(`INSERT INTO ai_passages_english (rowid, title, body)
      SELECT id, title, body FROM ai_passages WHERE ${englishIndexed("")}`)
  })

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({ pg: () => pg(sql), orElse: () => sqlite(sql) })
})
