/**
 * Per-workspace counters: the `total` of an unfiltered list comes from here, kept in the same
 * transaction as the inserts and deletes it counts, never from a `COUNT(*)` over the table.
 */
import type { WorkspaceId } from "@support-engine/core"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt } from "./Columns.js"
import { mapSqlError } from "./SqlErrors.js"

export class Counters extends Context.Service<Counters>()("@support-engine/storage/Counters", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findValue = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: Schema.String, name: Schema.String }),
      Result: Schema.Struct({ value: DbInt }),
      execute: (r) =>
        sql`SELECT value FROM workspace_counters WHERE workspace_id = ${r.workspace_id} AND name = ${r.name}`
    })

    /** Adds `delta` to a counter; call it inside the transaction that inserts or deletes the rows. */
    const add = (workspaceId: WorkspaceId, name: string, delta: number) =>
      sql`INSERT INTO workspace_counters (workspace_id, name, value) VALUES (${workspaceId}, ${name}, ${delta})
          ON CONFLICT (workspace_id, name) DO UPDATE SET value = workspace_counters.value + ${delta}`.pipe(
        Effect.asVoid,
        mapSqlError
      )

    const get = (workspaceId: WorkspaceId, name: string) =>
      findValue({ workspace_id: workspaceId, name }).pipe(
        Effect.map(Option.match({ onNone: () => 0, onSome: (r) => r.value })),
        mapSqlError
      )

    return { add, get } as const
  })
}) {
  static readonly layer: Layer.Layer<Counters, never, SqlClient.SqlClient> = Layer.effect(this, this.make)
}
