/** The `Transactor` port on `effect/sql`: nested calls join the outer transaction (savepoints). */
import { AfterCommit, Transactor } from "@support-engine/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { toPersistenceError } from "./SqlErrors.js"

export const SqlTransactorLive: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const outermost = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const hooks: Array<Effect.Effect<void>> = []
        return sql.withTransaction(Effect.provideService(self, AfterCommit, { add: (e) => hooks.push(e) })).pipe(
          Effect.tap(() => Effect.all(hooks, { discard: true }))
        )
      })
    return Transactor.of({
      withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => {
        const run: Effect.Effect<A, E | SqlError.SqlError, R> = Effect.flatMap(
          Effect.serviceOption(AfterCommit),
          (current) => Option.isSome(current) ? sql.withTransaction(self) : outermost(self)
        )
        return Effect.mapError(run, (error) => SqlError.isSqlError(error) ? toPersistenceError(error) : error)
      }
    })
  })
)
