/**
 * Timestamp.ts: the D6 wire form. `formatTimestamp` formats from `epochMilliseconds` directly (docs/performance.md), so
 * these pin what the `DateTime` functions it replaced gave: UTC, milliseconds, `+00:00`, whatever the zone.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Result, Schema } from "effect"
import { formatTimestamp, NullableTimestamp, Timestamp } from "../src/shared/Timestamp.js"

describe("Timestamp (D6)", () => {
  it("formats UTC with milliseconds and a numeric offset", () => {
    expect(formatTimestamp(DateTime.makeUnsafe("2026-11-21T15:07:00Z"))).toBe("2026-11-21T15:07:00.000+00:00")
    expect(formatTimestamp(DateTime.makeUnsafe(Date.UTC(1999, 11, 31, 23, 59, 59, 7)))).toBe(
      "1999-12-31T23:59:59.007+00:00"
    )
  })

  it("formats a zoned DateTime as the same instant in UTC", () => {
    const zoned = DateTime.makeZonedUnsafe("2026-11-21T16:07:00.123+01:00", { timeZone: "Europe/Berlin" })
    expect(formatTimestamp(zoned)).toBe("2026-11-21T15:07:00.123+00:00")
  })

  it("decodes any RFC 3339 offset and encodes back in the D6 form", () => {
    const decoded = Schema.decodeUnknownResult(Timestamp)("2026-11-21T10:07:00.5-05:00")
    expect(Result.map(decoded, Schema.encodeSync(Timestamp))).toEqual(Result.succeed("2026-11-21T15:07:00.500+00:00"))
    expect(Result.isFailure(Schema.decodeUnknownResult(Timestamp)("yesterday"))).toBe(true)
  })
})

describe("NullableTimestamp", () => {
  it("is null or a Timestamp both ways: null stays null, a DateTime is the D6 form", () => {
    const encode = Schema.encodeSync(NullableTimestamp)
    expect(encode(null)).toBe(null)
    expect(encode(DateTime.makeUnsafe("2026-11-21T15:07:00Z"))).toBe("2026-11-21T15:07:00.000+00:00")
    const decode = Schema.decodeUnknownResult(NullableTimestamp)
    expect(decode(null)).toEqual(Result.succeed(null))
    expect(Result.map(decode("2026-11-21T10:07:00-05:00"), (dt) => dt?.epochMilliseconds)).toEqual(
      Result.succeed(Date.UTC(2026, 10, 21, 15, 7))
    )
    for (const bad of ["yesterday", 0, undefined]) expect(Result.isFailure(decode(bad)), String(bad)).toBe(true)
  })

  it("lists null first, so a null is never offered to the DateTime member, which would refuse it", () => {
    expect(NullableTimestamp.members[0]).toBe(Schema.Null)
    expect(Result.isFailure(Schema.encodeUnknownResult(Schema.toType(Timestamp))(null))).toBe(true)
  })
})

describe("Timestamp input (D49): RFC 3339 with a zone, nothing else", () => {
  const decode = (s: string) => Result.map(Schema.decodeUnknownResult(Timestamp)(s), Schema.encodeSync(Timestamp))

  it("accepts Z, offsets, lower case, a space separator and up to nine fraction digits, normalised to UTC", () => {
    expect(decode("2026-01-02T03:04:05Z")).toEqual(Result.succeed("2026-01-02T03:04:05.000+00:00"))
    expect(decode("2026-01-02t03:04:05z")).toEqual(Result.succeed("2026-01-02T03:04:05.000+00:00"))
    expect(decode("2026-01-02 03:04:05+02:00")).toEqual(Result.succeed("2026-01-02T01:04:05.000+00:00"))
    expect(decode("2026-01-02T03:04:05.123456789-00:30")).toEqual(Result.succeed("2026-01-02T03:34:05.123+00:00"))
    expect(decode("2024-02-29T00:00:00Z")).toEqual(Result.succeed("2024-02-29T00:00:00.000+00:00"))
  })

  it("refuses dates without a zone, other formats and impossible dates", () => {
    for (
      const input of [
        "Jan 2 2026",
        "2026-01-02",
        "2026-01-02T03:04:05",
        "2026-01-02T03:04Z",
        "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-01-02T24:00:00Z",
        "2026-01-02T03:04:05+0200",
        "2026-01-02T03:04:05.Z",
        "+002026-01-02T03:04:05Z",
        "1767323045",
        " 2026-01-02T03:04:05Z"
      ]
    ) expect([input, Result.isFailure(decode(input))]).toEqual([input, true])
  })
})
