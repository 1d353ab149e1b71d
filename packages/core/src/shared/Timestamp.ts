/**
 * Timestamps: RFC 3339 in UTC with milliseconds and a numeric offset, `2026-11-21T15:07:00.123+00:00`.
 * In memory a timestamp is a `DateTime.Utc`; this schema is its wire form.
 */
import { DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { isoUtcWithOffset } from "./IsoTime.js"
import { nullFirst } from "./Model.js"

/**
 * Formats a `DateTime` the way every response and webhook body shows it: in UTC, from `epochMilliseconds`, by
 * arithmetic (IsoTime.ts) rather than through `DateTime.formatIso` or `Date`, on every timestamp of every list page.
 */
export const formatTimestamp = (dt: DateTime.DateTime): string => isoUtcWithOffset(dt.epochMilliseconds)

/** A timestamp that may be absent, in the form every response shows. */
export const formatNullableTimestamp = (dt: DateTime.DateTime | null): string | null =>
  dt === null ? null : formatTimestamp(dt)

/**
 * RFC 3339's `date-time`: full date, time, and a zone (`Z` or an offset). `Date` parsing alone accepts
 * `Jan 2 2026`, zone-less times read in the server's own zone, and rolls `2026-02-30` over to March.
 */
const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/

const isRfc3339 = (s: string): boolean => {
  const match = RFC_3339.exec(s)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const notRfc3339 = () => new SchemaIssue.InvalidValue({ message: "must be an RFC 3339 date-time" })

/**
 * Accepts an RFC 3339 date-time with a time zone, normalised to UTC; encodes in the form every response shows. The
 * identifier and format sit on the encoded side, which is what JSON Schema and OpenAPI describe.
 */
export const Timestamp = Schema.String.annotate({ identifier: "Timestamp", format: "date-time" }).pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (s: string) => {
        const parsed = isRfc3339(s) ? DateTime.make(s.toUpperCase().replace(" ", "T")) : Option.none()
        return Option.isSome(parsed) ? Effect.succeed(DateTime.toUtc(parsed.value)) : Effect.fail(notRfc3339())
      },
      encode: (dt) => Effect.succeed(formatTimestamp(dt))
    })
  )
)
export type Timestamp = typeof Timestamp.Type

/** A timestamp or null, null tried first (`Model.nullFirst`): models encode many null timestamps. */
export const NullableTimestamp: Schema.Union<readonly [Schema.Null, typeof Timestamp]> = nullFirst(Timestamp)

/** The current time from Effect's `Clock`, so `TestClock` controls it. */
export const now: Effect.Effect<DateTime.Utc> = DateTime.now
