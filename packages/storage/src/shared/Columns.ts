/**
 * Column codecs shared by every repository. SQLite returns strings and numbers where node-postgres returns
 * `Date`, booleans, parsed JSON and bigint-as-string; each row schema here decodes both, and each parameter
 * helper writes what the current dialect stores.
 *
 * Repositories build models from decoded rows with `new Model(row, true)`: the row schema has just checked every
 * field, and the constructor's check would be the second of the same values on every row read.
 */
import type { SqlClient } from "@effect/sql"
import { DateTime, ParseResult, Schema } from "effect"

// Each codec below is one transformation that accepts either driver's form. A `Schema.Union` of two codecs
// would try one member, build a parse failure when it does not match, then try the other, on every column of
// every row: measurable on list pages (docs/performance.md).

/** Writes a timestamp as ISO 8601 UTC with milliseconds: fixed width, so text order is time order. */
export const ts = (dt: DateTime.DateTime): string => new Date(dt.epochMillis).toISOString()
export const tsOrNull = (dt: DateTime.DateTime | null): string | null => dt === null ? null : ts(dt)

/**
 * A stored timestamp: ISO text (SQLite) or a `Date` (PostgreSQL timestamptz).
 *
 * One declaration that converts in a single step: the same codec as a `transformOrFail` from a union of the two
 * stored forms to `DateTimeUtcFromSelf` checked the union, the transformation and the result on every column of
 * every row, 0.87 µs per timestamp against 0.53 here, a tenth of decoding a list page's rows. Rows are only
 * decoded; encoding is there for completeness.
 */
export const DbTimestamp: Schema.Schema<DateTime.Utc, string | Date> = Schema.declare<
  DateTime.Utc,
  string | Date,
  readonly []
>([], {
  decode: () => (stored, _, ast) => {
    const millis = typeof stored === "string"
      ? Date.parse(stored)
      : stored instanceof Date
      ? stored.getTime()
      : Number.NaN
    return Number.isNaN(millis)
      ? ParseResult.fail(new ParseResult.Type(ast, stored, "not a timestamp"))
      : ParseResult.succeed(DateTime.unsafeMake(millis))
  },
  encode: () => (dt, _, ast) =>
    DateTime.isDateTime(dt)
      ? ParseResult.succeed(ts(dt))
      : ParseResult.fail(new ParseResult.Type(ast, dt, "not a DateTime"))
}, { identifier: "DbTimestamp" })

/** A stored boolean: 0/1 (SQLite) or a boolean (PostgreSQL). */
export const DbBoolean: Schema.Schema<boolean, boolean | 0 | 1> = Schema.transform(
  Schema.Union(Schema.Boolean, Schema.Literal(0, 1)),
  Schema.Boolean,
  { strict: true, decode: (stored) => stored === true || stored === 1, encode: (b) => b }
)

/** A stored integer: a number, or a bigint rendered as a string by node-postgres (COUNT, BIGINT). */
export const DbInt: Schema.Schema<number, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Schema.Int,
  {
    strict: true,
    decode: (stored, _, ast) => {
      const n = typeof stored === "number" ? stored : Number(stored)
      return Number.isSafeInteger(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, stored, "not an integer"))
    },
    encode: (n) => ParseResult.succeed(n)
  }
)

/** A stored JSON value: text (SQLite) or parsed jsonb (PostgreSQL), then checked against `schema`. */
export const DbJson = <A, I>(schema: Schema.Schema<A, I>): Schema.Schema<A, string | I> =>
  Schema.transformOrFail(Schema.Unknown, schema, {
    strict: false,
    decode: (stored, _, ast) => {
      if (typeof stored !== "string") return ParseResult.succeed(stored)
      try {
        return ParseResult.succeed(JSON.parse(stored))
      } catch {
        return ParseResult.fail(new ParseResult.Type(ast, stored, "not JSON"))
      }
    },
    encode: (value) => ParseResult.succeed(JSON.stringify(value))
  }) as unknown as Schema.Schema<A, string | I>

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
