/**
 * Timestamp.ts: the D6 wire form. `formatTimestamp` formats from `epochMillis` directly (docs/performance.md), so
 * these pin what the `DateTime` functions it replaced gave: UTC, milliseconds, `+00:00`, whatever the zone.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Either, Schema } from "effect"
import { formatTimestamp, Timestamp } from "../src/shared/Timestamp.js"

describe("Timestamp (D6)", () => {
  it("formats UTC with milliseconds and a numeric offset", () => {
    expect(formatTimestamp(DateTime.unsafeMake("2026-11-21T15:07:00Z"))).toBe("2026-11-21T15:07:00.000+00:00")
    expect(formatTimestamp(DateTime.unsafeMake(Date.UTC(1999, 11, 31, 23, 59, 59, 7)))).toBe(
      "1999-12-31T23:59:59.007+00:00"
    )
  })

  it("formats a zoned DateTime as the same instant in UTC", () => {
    const zoned = DateTime.unsafeMakeZoned("2026-11-21T16:07:00.123+01:00", { timeZone: "Europe/Berlin" })
    expect(formatTimestamp(zoned)).toBe("2026-11-21T15:07:00.123+00:00")
  })

  it("decodes any RFC 3339 offset and encodes back in the D6 form", () => {
    const decoded = Schema.decodeUnknownEither(Timestamp)("2026-11-21T10:07:00.5-05:00")
    expect(Either.map(decoded, Schema.encodeSync(Timestamp))).toEqual(Either.right("2026-11-21T15:07:00.500+00:00"))
    expect(Either.isLeft(Schema.decodeUnknownEither(Timestamp)("yesterday"))).toBe(true)
  })
})
