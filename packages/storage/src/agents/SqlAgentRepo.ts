/** Agents on `effect/sql`. */
import { Agent, AgentId, AgentRepo, EscalationRule, ProhibitedPhrase, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbBoolean, DbInt, DbJson, DbTimestamp, params, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { mapSqlError, orUnique } from "../shared/SqlErrors.js"

const AgentRow = Schema.Struct({
  id: AgentId,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  max_messages_per_session: DbInt,
  tone: Schema.String,
  response_length: Schema.String,
  is_active: DbBoolean,
  is_copilot: DbBoolean,
  auto_reply: DbBoolean,
  model: Schema.String,
  prohibited_phrases: DbJson(Schema.Array(ProhibitedPhrase)),
  escalation_rules: DbJson(Schema.Array(EscalationRule)),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const COUNTER = "agents"
const toAgent = (row: typeof AgentRow.Type) => new Agent(row, { disableChecks: true })
const encodePhrases = Schema.encodeSync(Schema.Array(ProhibitedPhrase))
const encodeRules = Schema.encodeSync(Schema.Array(EscalationRule))
const COLUMNS = "id, name, slug, description, avatar_url, max_messages_per_session, tone, response_length, " +
  "is_active, is_copilot, auto_reply, model, prohibited_phrases, escalation_rules, created_at, updated_at"

export const SqlAgentRepoLive: Layer.Layer<AgentRepo, never, SqlClient.SqlClient | Counters> = Layer.effect(
  AgentRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const p = params(sql)
    const columns = sql.literal(COLUMNS)

    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: AgentId }),
      Result: AgentRow,
      execute: (r) => sql`SELECT ${columns} FROM agents WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        is_active: Schema.optional(Schema.Boolean),
        ...WindowFields
      }),
      Result: AgentRow,
      execute: (r) =>
        sql`SELECT ${columns} FROM agents WHERE workspace_id = ${r.workspace_id}
            ${r.is_active === undefined ? sql`` : sql`AND is_active = ${p.bool(r.is_active)}`}
            ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
    })

    const countActive = SqlSchema.findOne({
      Request: Schema.Struct({ workspace_id: WorkspaceId, is_active: Schema.Boolean }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM agents WHERE workspace_id = ${r.workspace_id}
            AND is_active = ${p.bool(r.is_active)}`
    })

    const values = (a: Agent) => ({
      phrases: p.json(encodePhrases(a.prohibited_phrases)),
      rules: p.json(encodeRules(a.escalation_rules))
    })

    return AgentRepo.of({
      insert: (workspaceId, a) => {
        const v = values(a)
        return Effect.andThen(
          sql`INSERT INTO agents (id, workspace_id, name, slug, description, avatar_url, max_messages_per_session, tone,
            response_length, is_active, is_copilot, auto_reply, model, prohibited_phrases, escalation_rules, created_at,
            updated_at) VALUES (${a.id}, ${workspaceId}, ${a.name}, ${a.slug}, ${a.description}, ${a.avatar_url},
            ${a.max_messages_per_session}, ${a.tone}, ${a.response_length}, ${p.bool(a.is_active)},
            ${p.bool(a.is_copilot)}, ${p.bool(a.auto_reply)}, ${a.model}, ${v.phrases}, ${v.rules}, ${ts(a.created_at)},
            ${ts(a.updated_at)})`.pipe(
            // The id is a fresh UUID, so the only unique index an insert can hit is (workspace_id, slug).
            orUnique("agents.slug")
          ),
          counters.add(workspaceId, COUNTER, 1)
        )
      },
      update: (workspaceId, a) => {
        const v = values(a)
        return sql`UPDATE agents SET name = ${a.name}, description = ${a.description}, avatar_url = ${a.avatar_url},
            max_messages_per_session = ${a.max_messages_per_session}, tone = ${a.tone},
            response_length = ${a.response_length}, is_active = ${p.bool(a.is_active)},
            auto_reply = ${p.bool(a.auto_reply)},
            prohibited_phrases = ${v.phrases}, escalation_rules = ${v.rules}, updated_at = ${ts(a.updated_at)}
            WHERE workspace_id = ${workspaceId} AND id = ${a.id}`.pipe(Effect.asVoid, mapSqlError)
      },
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.map(toAgent)), mapSqlError),
      findIds: (workspaceId, ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : sql<{ readonly id: string }>`SELECT id FROM agents WHERE workspace_id = ${workspaceId}
              AND ${sql.in("id", ids)}`.pipe(
            Effect.map((rows) => {
              const found = new Set(rows.map((r) => String(r.id)))
              return ids.filter((id) => found.has(id))
            }),
            mapSqlError
          ),
      slugsLike: (workspaceId, base) =>
        sql<{ readonly slug: string }>`SELECT slug FROM agents WHERE workspace_id = ${workspaceId}
            AND (slug = ${base} OR slug LIKE ${`${base}-%`})`.pipe(
          Effect.map((rows) => rows.map((r) => r.slug)),
          mapSqlError
        ),
      delete: (workspaceId, id) =>
        sql`DELETE FROM agents WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          mapSqlError,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, COUNTER, -1), true)
          )
        ),
      list: (workspaceId, filter, slice) =>
        Effect.all({
          items: page({ workspace_id: workspaceId, is_active: filter.is_active, ...windowOf(slice) }).pipe(
            Effect.map((rows) => rows.map(toAgent)),
            mapSqlError
          ),
          total: totalOf(
            slice,
            filter.is_active === undefined
              ? counters.get(workspaceId, COUNTER)
              : countActive({ workspace_id: workspaceId, is_active: filter.is_active }).pipe(
                Effect.map((r) => r.total),
                mapSqlError
              )
          )
        })
    })
  })
)
