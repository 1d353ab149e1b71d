/** The `Outbox` port on `effect/sql`: events are rows appended in the caller's transaction. */
import { Actor, Event, EventData, EventId, EventType, Outbox, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, DbJson, DbTimestamp, params, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"

// Events addressed to one webhook (`webhook.ping`) are delivered but are not part of the log: every
// read below leaves them out, and they are not counted.
const EventRow = Schema.Struct({
  id: EventId,
  event: EventType,
  occurred_at: DbTimestamp,
  actor_type: Actor.fields.type,
  actor_id: Actor.fields.id,
  data: DbJson(EventData)
})

const toEvent = (row: typeof EventRow.Type): Event =>
  new Event({
    id: row.id,
    event: row.event,
    occurred_at: row.occurred_at,
    actor: new Actor({ type: row.actor_type, id: row.actor_id }),
    data: row.data
  })

const COUNTER = "events"

export const SqlOutboxLive: Layer.Layer<Outbox, never, SqlClient.SqlClient | Counters> = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const p = params(sql)

    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: EventId }),
      Result: EventRow,
      execute: (r) =>
        sql`SELECT * FROM events WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}
            AND target_webhook_id IS NULL`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        event: Schema.optional(Schema.String),
        ...WindowFields
      }),
      Result: EventRow,
      // Events never change: `updated_since` reads `occurred_at`, their recording time.
      execute: (r) =>
        sql`SELECT * FROM events WHERE workspace_id = ${r.workspace_id} AND target_webhook_id IS NULL
            ${r.event === undefined ? sql`` : sql`AND event = ${r.event}`}
            ${keyset(sql, r, { newest: "occurred_at", updated: "occurred_at" })}`
    })

    const countByType = SqlSchema.findOne({
      Request: Schema.Struct({ workspace_id: WorkspaceId, event: Schema.String }),
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) =>
        sql`SELECT COUNT(*) AS total FROM events WHERE workspace_id = ${r.workspace_id} AND event = ${r.event}
            AND target_webhook_id IS NULL`
    })

    const after = SqlSchema.findAll({
      Request: Schema.Struct({
        workspace_id: WorkspaceId,
        after: EventId,
        event: Schema.optional(Schema.String),
        limit: Schema.Int
      }),
      Result: EventRow,
      execute: (r) =>
        sql`SELECT * FROM events WHERE workspace_id = ${r.workspace_id} AND id > ${r.after}
            AND target_webhook_id IS NULL
            ${r.event === undefined ? sql`` : sql`AND event = ${r.event}`}
            ORDER BY id ASC ${limit(sql, r.limit)}`
    })

    const prunedThrough = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: EventId }),
      Result: Schema.Struct({ last_id: EventId }),
      execute: (r) =>
        sql`SELECT last_id FROM pruned_events WHERE workspace_id = ${r.workspace_id} AND last_id >= ${r.id}`
    })

    return Outbox.of({
      append: (workspaceId, event) =>
        Effect.andThen(
          sql`INSERT INTO events (id, workspace_id, event, occurred_at, actor_type, actor_id, data) VALUES (
            ${event.id}, ${workspaceId}, ${event.event}, ${ts(event.occurred_at)}, ${event.actor.type},
            ${event.actor.id}, ${p.json(event.data)})`.pipe(mapSqlError),
          counters.add(workspaceId, COUNTER, 1)
        ),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(
          Effect.map((row) => row.pipe(Option.map(toEvent))),
          mapSqlError
        ),
      list: (workspaceId, filter, slice) =>
        Effect.all({
          items: page({ workspace_id: workspaceId, event: filter.event, ...windowOf(slice) }).pipe(
            Effect.map((rows) => rows.map(toEvent)),
            mapSqlError
          ),
          // A type filter counts through the (workspace_id, event, ...) index; the unfiltered total is kept.
          total: totalOf(
            slice,
            filter.event === undefined
              ? counters.get(workspaceId, COUNTER)
              : countByType({ workspace_id: workspaceId, event: filter.event }).pipe(
                Effect.map((r) => r.total),
                mapSqlError
              )
          )
        }),
      listAfter: (workspaceId, afterId, filter, limit) =>
        after({ workspace_id: workspaceId, after: afterId, event: filter.event, limit }).pipe(
          Effect.map((rows) => rows.map(toEvent)),
          mapSqlError
        ),
      wasPruned: (workspaceId, id) =>
        prunedThrough({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.isSome), mapSqlError)
    })
  })
)
