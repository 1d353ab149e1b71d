/**
 * Timestamps (D6): RFC 3339 in UTC with milliseconds and a numeric offset, `2026-11-21T15:07:00.123+00:00`.
 * In memory a timestamp is a `DateTime.Utc`; this schema is its wire form.
 */
import { DateTime, Effect, ParseResult, Schema } from "effect"

/** Formats a `DateTime` the way every response and webhook body shows it (D6). */
export const formatTimestamp = (dt: DateTime.DateTime): string =>
  DateTime.formatIso(DateTime.toUtc(dt)).replace(/Z$/, "+00:00")

/** Accepts any ISO 8601 / RFC 3339 date-time string; encodes in the D6 form. */
export const Timestamp = Schema.transformOrFail(Schema.String, Schema.DateTimeUtcFromSelf, {
  strict: true,
  decode: (s, _, ast) =>
    DateTime.make(s).pipe(
      Effect.map(DateTime.toUtc),
      Effect.mapError(() => new ParseResult.Type(ast, s, "must be an ISO 8601 date-time"))
    ),
  encode: (dt) => ParseResult.succeed(formatTimestamp(dt))
}).annotations({ identifier: "Timestamp", jsonSchema: { type: "string", format: "date-time" } })
export type Timestamp = typeof Timestamp.Type

/** The current time from Effect's `Clock` (D4), so `TestClock` controls it. */
export const now: Effect.Effect<DateTime.Utc> = DateTime.now
