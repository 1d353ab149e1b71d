/**
 * The storage boundary: no `SqlError` or `SchemaError` crosses a port. A unique or foreign-key violation becomes core's
 * `UniqueViolation` / `ForeignKeyViolation` with the key the repository names (the port says which keys a method can
 * hit, and the core service decides what it means); everything else becomes one `PersistenceError`.
 */
import { ForeignKeyViolation, PersistenceError, UniqueViolation } from "@support-engine/core"
import { type Cause, Effect, type Schema } from "effect"
import type { SqlError } from "effect/sql"

const causeText = (cause: unknown): string => {
  if (typeof cause !== "object" || cause === null) return String(cause)
  const c = cause as { code?: unknown; message?: unknown; constraint?: unknown }
  return `${String(c.code ?? "")} ${String(c.message ?? "")} ${String(c.constraint ?? "")}`
}

/** The driver's error code (better-sqlite3's `code`, the PostgreSQL SQLSTATE), under the error's reason. */
const driverCode = (error: SqlError.SqlError): unknown => {
  const driver: unknown = error.reason.cause
  return typeof driver === "object" && driver !== null && "code" in driver ? driver.code : undefined
}

/** SQLite `SQLITE_CONSTRAINT_FOREIGNKEY`, PostgreSQL `23503`. */
export const isForeignKeyViolation = (error: SqlError.SqlError): boolean => {
  const code = driverCode(error)
  return code === "SQLITE_CONSTRAINT_FOREIGNKEY" || code === "23503"
}

/** SQLite `SQLITE_CONSTRAINT_UNIQUE` / `SQLITE_CONSTRAINT_PRIMARYKEY`, PostgreSQL `23505`. */
export const isUniqueViolation = (error: SqlError.SqlError): boolean => {
  const code = driverCode(error)
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505"
}

type StorageFailure = SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError

/** Wraps a driver or row-decoding failure; `reason` is for logs only. */
export const toPersistenceError = (error: StorageFailure): PersistenceError =>
  new PersistenceError({
    reason: error._tag === "SqlError" ? causeText(error.reason.cause) : `${error._tag}: ${error.message}`,
    cause: error
  })

/** Maps driver and row-decoding errors to `PersistenceError`. */
export const mapSqlError = <A, R>(
  self: Effect.Effect<A, StorageFailure, R>
): Effect.Effect<A, PersistenceError, R> => Effect.mapError(self, toPersistenceError)

/** Like `mapSqlError`, but a unique violation becomes `UniqueViolation` with `key` (`<table>.<columns>`). */
export const orUnique = (key: string) =>
<A, R>(
  self: Effect.Effect<A, StorageFailure, R>
): Effect.Effect<A, PersistenceError | UniqueViolation, R> =>
  Effect.mapError(self, (error) =>
    error._tag === "SqlError" && isUniqueViolation(error)
      ? new UniqueViolation({ key })
      : toPersistenceError(error))

/**
 * Like `orUnique`, and a foreign-key violation (a referenced row deleted by a concurrent transaction) becomes
 * `ForeignKeyViolation`, so both dialects report it as the same domain error.
 */
export const orConstraint = (keys: { readonly unique: string; readonly foreign: string }) =>
<A, R>(
  self: Effect.Effect<A, StorageFailure, R>
): Effect.Effect<A, PersistenceError | UniqueViolation | ForeignKeyViolation, R> =>
  Effect.mapError(self, (error) =>
    error._tag !== "SqlError"
      ? toPersistenceError(error)
      : isUniqueViolation(error)
      ? new UniqueViolation({ key: keys.unique })
      : isForeignKeyViolation(error)
      ? new ForeignKeyViolation({ key: keys.foreign })
      : toPersistenceError(error))
