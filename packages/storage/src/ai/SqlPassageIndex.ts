/**
 * The passage index on `effect/sql`: FTS5 with bm25 on SQLite, `tsvector` with `ts_rank` on PostgreSQL
 * (migrations 0016 and 0031). Sources are filtered when reading: completed items linked to the agent or to no agent,
 * and translations of published articles, of the asking workspace only.
 *
 * A passage matches any of the words as written (diacritics folded), or, when the question has a language the
 * database stems, any of the words' stems among the passages in that language. Training items, which carry no
 * language, are stemmed as English (the one language both databases stem), so an English question finds them by
 * stems too.
 */
import { AgentId, Citation, CitationType, PassageIndex, Uuid, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import {
  trainingStems,
  trainingWords,
  translationStems,
  translationWords
} from "../migrations/0031_search_languages.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"
import { language, SQLITE_STEMMED } from "../shared/TextSearch.js"

const PassageRow = Schema.Struct({
  source_type: CitationType,
  source_id: Uuid,
  locale: Schema.NullOr(Schema.String),
  title: Schema.String,
  url: Schema.NullOr(Schema.String),
  text: Schema.String
})

const Request = Schema.Struct({
  workspace_id: WorkspaceId,
  agent_id: AgentId,
  words: Schema.Array(Schema.String),
  locale: Schema.NullOr(Schema.String),
  limit: Schema.Int
})

/** Words are letters and digits only (core's `words`), so quoting each one cannot break either query syntax. */
const safe = (w: string) => /^[\p{L}\p{N}]+$/u.test(w)

export const SqlPassageIndexLive: Layer.Layer<PassageIndex, never, SqlClient.SqlClient> = Layer.effect(
  PassageIndex,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const training = sql.literal(trainingWords("t"))
    const trainingEnglish = sql.literal(trainingStems("t"))
    const english = sql.literal("'pg_catalog.english'::regconfig")
    const translation = sql.literal(translationWords("tr"))
    const stems = sql.literal(translationStems("tr"))

    const linked = (itemId: Parameters<typeof sql.literal>[0], agentId: string) =>
      sql`(NOT EXISTS (SELECT 1 FROM training_data_agents a WHERE a.training_data_id = ${sql.literal(itemId)})
           OR EXISTS (SELECT 1 FROM training_data_agents a WHERE a.training_data_id = ${sql.literal(itemId)}
                      AND a.agent_id = ${agentId}))`

    const sqlite = (r: typeof Request.Encoded) => {
      const match = r.words.map((w) => `"${w}"`).join(" OR ")
      const english = language(r.locale) === SQLITE_STEMMED
        ? sql`UNION ALL SELECT rowid, rank FROM ai_passages_english WHERE ai_passages_english MATCH ${match}`
        : sql``
      return sql`SELECT p.source_type, p.source_id, p.locale, p.title, p.url, p.text
          FROM (SELECT id, MIN(score) AS score FROM (
                  SELECT rowid AS id, rank AS score FROM ai_passages_words WHERE ai_passages_words MATCH ${match}
                  ${english}) hits GROUP BY id) f
          JOIN ai_passages p ON p.id = f.id
          WHERE p.workspace_id = ${r.workspace_id}
            AND ((p.source_type = 'training_data'
                  AND EXISTS (SELECT 1 FROM training_data t WHERE t.id = p.source_id AND t.status = 'completed')
                  AND ${linked("p.source_id", r.agent_id)})
              OR (p.source_type = 'kb_article'
                  AND EXISTS (SELECT 1 FROM kb_articles k WHERE k.id = p.source_id AND k.status = 'published')))
          ORDER BY f.score, p.id ${limit(sql, r.limit)}`
    }

    // The stems count for the translations in the question's language only, as SQLite's English index does: another
    // language's stemmer would turn the question's words into that language's stems. A translation's score is the
    // better of its two matches, as on SQLite.
    const pg = (r: typeof Request.Encoded) => {
      const query = r.words.join(" | ")
      return sql`WITH search AS (
          SELECT to_tsquery('simple', support_search_fold(${query})) AS words,
                 support_search_config(${r.locale}) AS config,
                 to_tsquery(support_search_config(${r.locale}), ${query}) AS stems)
        SELECT source_type, source_id, locale, title, url, text FROM (
          SELECT 'training_data' AS source_type, t.id AS source_id, NULL AS locale, coalesce(t.title, '') AS title,
                 t.source AS url, coalesce(t.content, t.answer, '') AS text,
                 GREATEST(ts_rank(${training}, search.words), CASE WHEN search.config = ${english}
                   THEN ts_rank(${trainingEnglish}, search.stems) ELSE 0 END) AS score, t.id::text AS tie
          FROM training_data t, search
          WHERE t.workspace_id = ${r.workspace_id}
            AND (${training} @@ search.words
              OR (search.config = ${english} AND ${trainingEnglish} @@ search.stems))
            AND t.type IN ('text', 'qa') AND t.status = 'completed' AND ${linked("t.id", r.agent_id)}
          UNION ALL
          SELECT 'kb_article', tr.article_id, tr.locale, tr.title, tr.canonical_url, tr.content,
                 GREATEST(ts_rank(${translation}, search.words), CASE WHEN support_search_config(tr.locale)
                   = search.config THEN ts_rank(${stems}, search.stems) ELSE 0 END),
                 tr.article_id::text || tr.locale
          FROM kb_article_translations tr JOIN kb_articles k ON k.id = tr.article_id, search
          WHERE tr.workspace_id = ${r.workspace_id} AND k.status = 'published'
            AND (${translation} @@ search.words
              OR (support_search_config(tr.locale) = search.config AND ${stems} @@ search.stems))
        ) found ORDER BY score DESC, tie ${limit(sql, r.limit)}`
    }

    const find = SqlSchema.findAll({
      Request,
      Result: PassageRow,
      execute: (r) => sql.onDialectOrElse({ pg: () => pg(r), orElse: () => sqlite(r) })
    })

    return {
      retrieve: (workspaceId, query) => {
        const words = query.words.filter(safe)
        if (words.length === 0) return Effect.succeed([])
        return find({
          workspace_id: workspaceId,
          agent_id: query.agentId,
          words,
          locale: query.locale ?? null,
          limit: query.limit
        }).pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              citation: new Citation(
                { type: row.source_type, id: row.source_id, title: row.title, url: row.url },
                { disableChecks: true }
              ),
              locale: row.locale,
              text: row.text
            }))
          ),
          mapSqlError
        )
      }
    }
  })
)
