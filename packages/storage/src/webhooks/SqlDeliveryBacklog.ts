/**
 * The `DeliveryBacklog` port on `effect/sql`: one aggregate over the pending deliveries (the dispatcher's partial
 * index covers them), whatever the size of the delivered history.
 */
import { DeliveryBacklog, Model } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, DbTimestamp } from "../shared/Columns.js"
import { toPersistenceError } from "../shared/SqlErrors.js"

const BacklogRow = Schema.Struct({ pending: DbInt, oldest: Model.nullFirst(DbTimestamp) })

export const SqlDeliveryBacklogLive: Layer.Layer<DeliveryBacklog, never, SqlClient.SqlClient> = Layer.effect(
  DeliveryBacklog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = SqlSchema.findOne({
      Request: Schema.Void,
      Result: BacklogRow,
      execute: () =>
        sql`SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`
    })
    return DeliveryBacklog.of({
      read: read(undefined).pipe(
        Effect.map((row) => ({ pending: row.pending, oldest: Option.fromNullOr(row.oldest) })),
        Effect.mapError(toPersistenceError)
      )
    })
  })
)
