/**
 * Column codecs shared by every repository. SQLite returns strings and numbers where the PostgreSQL driver returns
 * `Date`, booleans, parsed JSON and bigints; each row schema here decodes both, and each parameter helper writes
 * what the current dialect stores.
 *
 * Repositories build models from decoded rows with `new Model(row, { disableChecks: true })`: the row schema has
 * just checked every field, and the constructor's checks would run a second time on every row read.
 */
import { isoUtc, parseIsoUtc } from "@support-engine/core"
import { DateTime, Effect, Schema, SchemaGetter, SchemaIssue } from "effect"
import type { SqlClient } from "effect/sql"

// Each codec below is one guard and one transformation that accept either driver's form. A `Schema.Union` of two
// codecs would try one member, build a failure when it does not match, then try the other, on every column of
// every row: measurable on list pages (docs/performance.md).

/** Writes a timestamp as ISO 8601 UTC with milliseconds: fixed width, so text order is time order. */
export const ts = (dt: DateTime.DateTime): string => isoUtc(dt.epochMilliseconds)
export const tsOrNull = (dt: DateTime.DateTime | null): string | null => dt === null ? null : ts(dt)

const invalid = (stored: unknown, message: string) => new SchemaIssue.InvalidValue({ message }, stored)

/** What either driver stores a timestamp as: ISO text (SQLite) or a `Date` (PostgreSQL timestamptz). */
const StoredTimestamp = Schema.declare(
  (u): u is string | Date => typeof u === "string" || u instanceof Date,
  { expected: "ISO text or a Date" }
)

/**
 * A stored timestamp: ISO text (SQLite) or a `Date` (PostgreSQL timestamptz), read in one step (`parseIsoUtc` or
 * `getTime`). Rows are only decoded; encoding writes what `ts` writes.
 */
export const DbTimestamp: Schema.Codec<DateTime.Utc, string | Date> = StoredTimestamp.pipe(
  Schema.decodeTo(Schema.DateTimeUtc, {
    decode: SchemaGetter.transformEffect((stored: string | Date) => {
      const millis = typeof stored === "string" ? parseIsoUtc(stored) : stored.getTime()
      return Number.isNaN(millis)
        ? Effect.fail(invalid(stored, "not a timestamp"))
        : Effect.succeed(DateTime.makeUnsafe(millis))
    }),
    encode: SchemaGetter.transform(ts)
  })
)

const StoredBoolean = Schema.declare(
  (u): u is boolean | 0 | 1 => typeof u === "boolean" || u === 0 || u === 1,
  { expected: "a boolean, 0 or 1" }
)

/** A stored boolean: 0/1 (SQLite) or a boolean (PostgreSQL). */
export const DbBoolean: Schema.Codec<boolean, boolean | 0 | 1> = StoredBoolean.pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((stored: boolean | 0 | 1) => stored === true || stored === 1),
    encode: SchemaGetter.transform((b: boolean) => b)
  })
)

const StoredInt = Schema.declare(
  (u): u is number | bigint | string => typeof u === "number" || typeof u === "bigint" || typeof u === "string",
  { expected: "a number, a bigint or a numeric string" }
)

/** A stored integer: a number, or a bigint (COUNT, BIGINT on PostgreSQL), as a value or rendered as a string. */
export const DbInt: Schema.Codec<number, number | bigint | string> = StoredInt.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transformEffect((stored: number | bigint | string) => {
      const n = typeof stored === "number" ? stored : Number(stored)
      return Number.isSafeInteger(n) ? Effect.succeed(n) : Effect.fail(invalid(stored, "not an integer"))
    }),
    encode: SchemaGetter.transform((n: number) => n)
  })
)

/** Text parsed as JSON (SQLite); anything else (the PostgreSQL driver's parsed jsonb) as it is. */
const ParsedIfText = Schema.Unknown.pipe(
  Schema.decodeTo(Schema.Unknown, {
    decode: SchemaGetter.transformEffect((stored: unknown) => {
      if (typeof stored !== "string") return Effect.succeed(stored)
      try {
        return Effect.succeed<unknown>(JSON.parse(stored))
      } catch {
        return Effect.fail(invalid(stored, "not JSON"))
      }
    }),
    encode: SchemaGetter.transform((value: unknown): unknown => JSON.stringify(value))
  })
)

/**
 * A stored JSON value: text (SQLite) or parsed jsonb (PostgreSQL), then checked against `schema`. Its encoded
 * side is whatever the driver returned, so `unknown`; rows are only decoded, encoding writes JSON text.
 */
export const DbJson = <A, I>(schema: Schema.Codec<A, I>): Schema.Codec<A, unknown> =>
  ParsedIfText.pipe(Schema.decodeTo(schema))

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
