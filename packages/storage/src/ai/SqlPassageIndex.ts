/**
 * The passage index on `effect/sql` (D53): FTS5 with bm25 on SQLite, `tsvector` with `ts_rank` on PostgreSQL
 * (migration 0016). Sources are filtered when reading: completed items linked to the agent or to no agent, and
 * translations of published articles, of the asking workspace only.
 */
import { AgentId, Citation, CitationType, PassageIndex, Uuid, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { TRAINING_VECTOR, TRANSLATION_VECTOR } from "../migrations/0016_ai_passages.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"

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
  limit: Schema.Int
})

/** Words are letters and digits only (core's `words`), so quoting each one cannot break either query syntax. */
const safe = (w: string) => /^[\p{L}\p{N}]+$/u.test(w)

export const SqlPassageIndexLive: Layer.Layer<PassageIndex, never, SqlClient.SqlClient> = Layer.effect(
  PassageIndex,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const trainingVector = sql.literal(TRAINING_VECTOR.replace(/\b(title|content|question|answer)\b/g, "t.$1"))
    const translationVector = sql.literal(TRANSLATION_VECTOR.replace(/\b(title|content)\b/g, "tr.$1"))

    const linked = (itemId: Parameters<typeof sql.literal>[0], agentId: string) =>
      sql`(NOT EXISTS (SELECT 1 FROM training_data_agents a WHERE a.training_data_id = ${sql.literal(itemId)})
           OR EXISTS (SELECT 1 FROM training_data_agents a WHERE a.training_data_id = ${sql.literal(itemId)}
                      AND a.agent_id = ${agentId}))`

    const sqlite = (r: typeof Request.Encoded) =>
      sql`SELECT p.source_type, p.source_id, p.locale, p.title, p.url, p.text
          FROM ai_passages_fts f JOIN ai_passages p ON p.id = f.rowid
          WHERE ai_passages_fts MATCH ${r.words.map((w) => `"${w}"`).join(" OR ")}
            AND p.workspace_id = ${r.workspace_id}
            AND ((p.source_type = 'training_data'
                  AND EXISTS (SELECT 1 FROM training_data t WHERE t.id = p.source_id AND t.status = 'completed')
                  AND ${linked("p.source_id", r.agent_id)})
              OR (p.source_type = 'kb_article'
                  AND EXISTS (SELECT 1 FROM kb_articles k WHERE k.id = p.source_id AND k.status = 'published')))
          ORDER BY f.rank, p.id ${limit(sql, r.limit)}`

    const pg = (r: typeof Request.Encoded) => {
      const query = r.words.join(" | ")
      return sql`SELECT source_type, source_id, locale, title, url, text FROM (
          SELECT 'training_data' AS source_type, t.id AS source_id, NULL AS locale, coalesce(t.title, '') AS title,
                 t.source AS url, coalesce(t.content, t.answer, '') AS text,
                 ts_rank(${trainingVector}, q) AS score, t.id::text AS tie
          FROM training_data t, to_tsquery('english', ${query}) q
          WHERE t.workspace_id = ${r.workspace_id} AND ${trainingVector} @@ q
            AND t.type IN ('text', 'qa') AND t.status = 'completed' AND ${linked("t.id", r.agent_id)}
          UNION ALL
          SELECT 'kb_article', tr.article_id, tr.locale, tr.title, tr.canonical_url, tr.content,
                 ts_rank(${translationVector}, q), tr.article_id::text || tr.locale
          FROM kb_article_translations tr JOIN kb_articles k ON k.id = tr.article_id,
               to_tsquery('english', ${query}) q
          WHERE tr.workspace_id = ${r.workspace_id} AND ${translationVector} @@ q AND k.status = 'published'
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
        return find({ workspace_id: workspaceId, agent_id: query.agentId, words, limit: query.limit }).pipe(
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
