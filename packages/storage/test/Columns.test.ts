/**
 * Columns.ts: the column codecs accept what either driver returns (SQLite text, node-postgres `Date`) and reject
 * anything else with a `SchemaError`, never a wrong value. `DbTimestamp` is a one-step declaration for speed
 * (docs/performance.md); these pin its behaviour. A nullable column (`Model.nullFirst`) offers a NULL to
 * no codec at all.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Model } from "@support-engine/core"
import { DateTime, Result, Schema } from "effect"
import { DbInt, DbTimestamp, ts } from "../src/shared/Columns.js"

const decode = Schema.decodeUnknownResult(DbTimestamp)
const millisOf = (input: unknown) =>
  Result.map(decode(input), (dt) => [DateTime.isUtc(dt), dt.epochMilliseconds] as const)

describe("DbTimestamp", () => {
  it("decodes SQLite's text and PostgreSQL's Date to the same UTC DateTime", () => {
    const at = Date.UTC(2026, 10, 21, 15, 7, 0, 123)
    expect(millisOf("2026-11-21T15:07:00.123Z")).toEqual(Result.succeed([true, at]))
    expect(millisOf(new Date(at))).toEqual(Result.succeed([true, at]))
  })

  it("rejects text that is not a time, an invalid Date, and other types", () => {
    for (const bad of ["not a time", new Date(Number.NaN), 1_700_000_000_000, null, undefined, {}]) {
      const result = decode(bad)
      expect(Result.isFailure(result), String(bad)).toBe(true)
    }
    const failure = decode("not a time")
    assert(Result.isFailure(failure))
    expect(failure.failure.message).toContain("not a timestamp")
  })

  it("encodes, and ts writes, fixed-width ISO text in UTC whatever the zone", () => {
    const zoned = DateTime.makeZonedUnsafe("2026-11-21T16:07:00.123+01:00", { timeZone: "Europe/Berlin" })
    expect(ts(zoned)).toBe("2026-11-21T15:07:00.123Z")
    expect(Schema.encodeSync(DbTimestamp)(DateTime.toUtc(zoned))).toBe("2026-11-21T15:07:00.123Z")
    expect(ts(DateTime.makeUnsafe(0))).toBe("1970-01-01T00:00:00.000Z")
  })
})

describe("Nullable columns (core's Model.nullFirst)", () => {
  it("decodes NULL to null and anything else through the column's codec, its failures included", () => {
    const decodeNullable = Schema.decodeUnknownResult(Model.nullFirst(DbTimestamp))
    expect(decodeNullable(null)).toEqual(Result.succeed(null))
    const at = Date.UTC(2026, 10, 21, 15, 7, 0, 123)
    expect(Result.map(decodeNullable("2026-11-21T15:07:00.123Z"), (dt) => dt?.epochMilliseconds)).toEqual(
      Result.succeed(at)
    )
    expect(Result.isFailure(decodeNullable("not a time"))).toBe(true)
    expect(Result.isFailure(decodeNullable(undefined))).toBe(true)
    expect(Schema.decodeUnknownSync(Model.nullFirst(DbInt))(7n)).toBe(7)
  })

  it("never offers NULL to the column's codec, and offers every other value to it once", () => {
    // A declaration admits every runtime type, so a union that tried it first would run each NULL through it.
    const seen: Array<unknown> = []
    const Column = Schema.declare((u): u is string => {
      seen.push(u)
      return typeof u === "string"
    })
    const decodeNullable = Schema.decodeUnknownSync(Model.nullFirst(Column))
    expect(decodeNullable(null)).toBe(null)
    expect(seen).toEqual([])
    expect(decodeNullable("stored")).toBe("stored")
    expect(seen).toEqual(["stored"])
    // What Schema.NullOr does with the same column: the declaration sees the NULL first.
    expect(Schema.decodeUnknownSync(Schema.NullOr(Column))(null)).toBe(null)
    expect(seen).toEqual(["stored", null])
  })
})
