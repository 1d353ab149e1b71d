/** The `Transactor` port on `@effect/sql`: nested calls join the outer transaction (savepoints). */
import { SqlClient, SqlError } from "@effect/sql"
import { Transactor } from "@support-engine/core/Transactor"
import { Effect, Layer } from "effect"
import { toPersistenceError } from "./SqlErrors.js"

export const SqlTransactorLive: Layer.Layer<Transactor, never, SqlClient.SqlClient> = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactor.of({
      withTransaction: (self) =>
        Effect.catchIf(
          sql.withTransaction(self),
          (error): error is SqlError.SqlError => error instanceof SqlError.SqlError,
          (error) => Effect.fail(toPersistenceError(error))
        )
    }))
)
