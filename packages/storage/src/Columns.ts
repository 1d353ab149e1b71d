/**
 * Column codecs shared by every repository. SQLite returns strings and numbers where node-postgres returns
 * `Date`, booleans, parsed JSON and bigint-as-string; each row schema here decodes both, and each parameter
 * helper writes what the current dialect stores.
 */
import type { SqlClient } from "@effect/sql"
import { DateTime, Schema } from "effect"

/** A stored timestamp: ISO text (SQLite) or a `Date` (PostgreSQL timestamptz). */
export const DbTimestamp = Schema.Union(
  Schema.DateTimeUtcFromDate,
  Schema.DateTimeUtc
)
/** Writes a timestamp as ISO 8601 UTC with milliseconds: fixed width, so text order is time order. */
export const ts = (dt: DateTime.DateTime): string => DateTime.formatIso(DateTime.toUtc(dt))
export const tsOrNull = (dt: DateTime.DateTime | null): string | null => dt === null ? null : ts(dt)

/** A stored boolean: 0/1 (SQLite) or a boolean (PostgreSQL). */
export const DbBoolean = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
    strict: true,
    decode: (n) => n === 1,
    encode: (b) => (b ? 1 : 0)
  })
)

/** A stored integer: a number, or a bigint rendered as a string by node-postgres (COUNT, BIGINT). */
export const DbInt = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))

/** A stored JSON value: text (SQLite) or parsed jsonb (PostgreSQL). */
export const DbJson = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.Union(Schema.parseJson(schema), schema) as unknown as Schema.Schema<A, string | I>

/** Parameter writers that depend on the dialect. */
export const params = (sql: SqlClient.SqlClient) => ({
  bool: (b: boolean): boolean | number => sql.onDialectOrElse({ pg: () => b, orElse: () => (b ? 1 : 0) }),
  json: (value: unknown): string => JSON.stringify(value)
})

/** Column types for DDL, so one migration serves both dialects. */
export const types = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => ({ id: "UUID", ts: "TIMESTAMPTZ", bool: "BOOLEAN", json: "JSONB", int: "INTEGER", bigint: "BIGINT" }),
    orElse: () => ({ id: "TEXT", ts: "TEXT", bool: "INTEGER", json: "TEXT", int: "INTEGER", bigint: "INTEGER" })
  })
