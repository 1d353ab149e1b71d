/** Idempotency keys on `effect/sql`. */
import { IdempotencyStore, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, DbJson, DbTimestamp, params, ts } from "../shared/Columns.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError } from "../shared/SqlErrors.js"

const OutcomeRow = Schema.Struct({
  fingerprint: Schema.String,
  status: DbInt,
  body: Schema.String,
  headers: DbJson(Schema.Record(Schema.String, Schema.String)),
  expires_at: DbTimestamp
})

/** Expired keys dropped per save: enough to keep up with any write rate, bounded so a save stays cheap. */
const PURGE_BATCH = 100

export const SqlIdempotencyStoreLive: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const p = params(sql)

    const find = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, key: Schema.String }),
      Result: OutcomeRow,
      execute: (r) =>
        sql`SELECT fingerprint, status, body, headers, expires_at FROM idempotency_keys
            WHERE workspace_id = ${r.workspace_id} AND idempotency_key = ${r.key}`
    })

    const tryLock = SqlSchema.findOne({
      Request: Schema.Struct({ slot: Schema.String }),
      Result: Schema.Struct({ locked: Schema.Boolean }),
      execute: (r) => sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${r.slot}, 0)) AS locked`
    })

    return IdempotencyStore.of({
      claim: (workspaceId, key) =>
        sql.onDialectOrElse({
          // A transaction-scoped try-lock: released at commit or rollback, never waited for.
          pg: () => tryLock({ slot: `idempotency:${workspaceId}:${key}` }).pipe(Effect.map((r) => r.locked)),
          // SQLite: one connection runs one transaction at a time; the service's in-process set does the rest.
          orElse: () => Effect.succeed(true)
        }).pipe(mapSqlError),
      find: (workspaceId, key, now) =>
        find({ workspace_id: workspaceId, key }).pipe(
          Effect.map(Option.filter((row) => row.expires_at.epochMilliseconds > now.epochMilliseconds)),
          Effect.map(Option.map(({ expires_at: _, ...outcome }) => outcome)),
          mapSqlError
        ),
      save: (workspaceId, key, outcome, now, expiresAt) =>
        Effect.andThen(
          sql`DELETE FROM idempotency_keys WHERE (workspace_id, idempotency_key) IN (
                SELECT workspace_id, idempotency_key FROM idempotency_keys WHERE expires_at <= ${ts(now)}
                ${limit(sql, PURGE_BATCH)})`,
          sql`INSERT INTO idempotency_keys (workspace_id, idempotency_key, fingerprint, status, body, headers,
                created_at, expires_at) VALUES (${workspaceId}, ${key}, ${outcome.fingerprint}, ${outcome.status},
                ${outcome.body}, ${p.json(outcome.headers)}, ${ts(now)}, ${ts(expiresAt)})
              ON CONFLICT (workspace_id, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint,
                status = excluded.status, body = excluded.body, headers = excluded.headers,
                created_at = excluded.created_at, expires_at = excluded.expires_at`
        ).pipe(Effect.asVoid, mapSqlError)
    })
  })
)
