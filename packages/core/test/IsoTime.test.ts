/**
 * IsoTime.ts: the arithmetic behind every timestamp the engine writes (D6's wire form, SQLite's stored text) must
 * answer exactly what `Date` answers, which it replaced, for every instant and every text.
 */
import { describe, expect, it } from "@effect/vitest"
import { isoUtc, isoUtcWithOffset, parseIsoUtc } from "../src/shared/IsoTime.js"

/** A small deterministic generator (mulberry32), so a failure names an instant that fails again. */
const generator = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

const LAST_FOUR_DIGIT_YEAR_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** The ways `instant` is written and read, next to what `Date` gives for each. */
const both = (instant: number) => {
  const iso = new Date(instant).toISOString()
  return {
    ours: { iso: isoUtc(instant), offset: isoUtcWithOffset(instant), read: parseIsoUtc(iso) },
    date: { iso, offset: `${iso.slice(0, -1)}+00:00`, read: Date.parse(iso) }
  }
}

/** Instants of year `year` (0-9999) at a day's first and last millisecond, on the days around month ends. */
const monthEdges = (year: number): Array<number> => {
  const instants: Array<number> = []
  for (const [month, day] of [[0, 1], [1, 28], [1, 29], [2, 1], [11, 31]] as const) {
    const date = new Date(0)
    date.setUTCFullYear(year, month, day)
    instants.push(date.getTime(), date.getTime() + 86_399_999)
  }
  return instants
}

describe("IsoTime (D6)", () => {
  it("writes and reads 200,000 instants between 1970 and 9999 as Date does", () => {
    const random = generator(6)
    const mismatches: Array<number> = []
    for (let i = 0; i < 200_000; i++) {
      const instant = Math.floor(random() * LAST_FOUR_DIGIT_YEAR_MS)
      const { date, ours } = both(instant)
      if (ours.iso !== date.iso || ours.offset !== date.offset || ours.read !== date.read) mismatches.push(instant)
    }
    expect(mismatches).toEqual([])
  })

  it("agrees with Date at every month edge of every year, leap days and years 0-99 included", () => {
    const mismatches: Array<number> = []
    for (let year = 0; year <= 9999; year++) {
      for (const instant of monthEdges(year)) {
        const { date, ours } = both(instant)
        if (ours.iso !== date.iso || ours.offset !== date.offset || ours.read !== date.read) mismatches.push(instant)
      }
    }
    expect(mismatches).toEqual([])
  })

  it("gives what Date gives outside the four-digit years, and throws as it does for an invalid time", () => {
    for (const instant of [-1, -86_400_001, Date.UTC(-5, 0, 1), LAST_FOUR_DIGIT_YEAR_MS + 1, 8.64e15]) {
      const { date, ours } = both(instant)
      expect([instant, ours]).toEqual([instant, date])
    }
    expect(isoUtc(0)).toBe("1970-01-01T00:00:00.000Z")
    expect(isoUtcWithOffset(LAST_FOUR_DIGIT_YEAR_MS)).toBe("9999-12-31T23:59:59.999+00:00")
    expect(() => isoUtc(Number.NaN)).toThrow(RangeError)
    expect(() => isoUtcWithOffset(Number.NaN)).toThrow(RangeError)
  })

  it("reads any other text, impossible dates in the fixed form included, as Date.parse does", () => {
    for (
      const text of [
        "2024-02-29T00:00:00.000Z",
        "2024-02-30T00:00:00.000Z",
        "2023-02-29T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z",
        "2000-02-29T00:00:00.000Z",
        "2024-13-01T00:00:00.000Z",
        "2024-00-10T00:00:00.000Z",
        "2024-01-00T00:00:00.000Z",
        "2024-01-01T24:00:00.000Z",
        "2024-01-01T00:60:00.000Z",
        "2024-01-01T00:00:60.000Z",
        "0050-06-01T12:00:00.000Z",
        "2024-0a-01T00:00:00.000Z",
        "20a4-01-01T00:00:00.000Z",
        "2024-01-01T00:00:00.00aZ",
        "2024-01-01 00:00:00.000Z",
        "2024-01-01T00:00:00.000+",
        "2024-01-01T00:00:00Z",
        "2024-01-01T00:00:00.000+02:00",
        "+012024-01-01T00:00:00.000Z",
        "garbage",
        ""
      ]
    ) expect([text, parseIsoUtc(text)]).toEqual([text, Date.parse(text)])
  })
})
