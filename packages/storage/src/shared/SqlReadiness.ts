/**
 * The `Readiness` port on `effect/sql`: the database answers a read of the migrations table within a bound, and the
 * newest migration recorded there is at least the newest this code registers (a newer release may have added more).
 */
import { Model, Readiness } from "@support-engine/core"
import { Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt } from "./Columns.js"
import { migrations } from "./Migrations.js"

/** The newest migration id this code registers. */
export const latestMigration: number = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/** A database that takes longer than this to answer a one-row read is not ready for traffic. */
const CHECK_TIMEOUT = Duration.seconds(2)

export const SqlReadinessLive: Layer.Layer<Readiness, never, SqlClient.SqlClient> = Layer.effect(
  Readiness,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const newest = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Schema.Struct({ id: Model.nullFirst(DbInt) }),
      execute: () => sql`SELECT MAX(migration_id) AS id FROM support_engine_migrations`
    })
    return Readiness.of({
      check: newest(undefined).pipe(
        Effect.map((row) => row.id !== null && row.id >= latestMigration),
        Effect.timeoutOption(CHECK_TIMEOUT),
        Effect.map(Option.getOrElse(() => false)),
        Effect.catch(() => Effect.succeed(false)),
        Effect.catchDefect(() => Effect.succeed(false))
      )
    })
  })
)
