/** The byte budget of list pages (issue 16, docs/limits.md): exact string sizes, an upper estimate, the cut. */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, DateTime, Schema } from "effect"
import { approximateJsonBytes, fittingCount, jsonStringBytes, PAGE_BYTE_BUDGET } from "../src/shared/PageBytes.js"

const utf8 = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).length

/** A character: one JSON escapes specially, or any Unicode code point but a lone surrogate's. */
const character = Arbitrary.map(
  Arbitrary.schema(
    Schema.Union([
      Schema.Literals(["\n", "\u0001", "\"", "\\"]),
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0x10ffff }))
    ])
  ),
  (c) => typeof c === "string" ? c : c >= 0xd800 && c <= 0xdfff ? "" : String.fromCodePoint(c)
)
/** Well-formed strings, with escapes and characters of every UTF-8 length. */
const text = Arbitrary.map(Arbitrary.array(character), (chars) => chars.join(""))

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether every string and key of a JSON value is well-formed. */
const wellFormed = (value: unknown): boolean => {
  if (typeof value === "string") return !LONE_SURROGATE.test(value)
  if (Array.isArray(value)) return value.every(wellFormed)
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).every(([key, item]) => wellFormed(key) && wellFormed(item))
  }
  return true
}

/** JSON values whose strings are well-formed. */
const json = Arbitrary.filter(Arbitrary.schema(Schema.Json), wellFormed)

describe("PageBytes", () => {
  // Lone surrogates are refused at input (StoredString), so well-formed strings are all a page can hold.
  it.prop(
    "jsonStringBytes is exactly what JSON.stringify writes in UTF-8, for any well-formed string",
    [text],
    ([s]) => {
      assert.strictEqual(jsonStringBytes(s), utf8(s))
    },
    { arbitrary: { runs: 2_000 } }
  )

  it.prop("approximateJsonBytes is at least the JSON size of plain data", [json], ([value]) => {
    assert.isAtLeast(approximateJsonBytes(value), utf8(value))
  }, { arbitrary: { runs: 1_000 } })

  it("approximateJsonBytes is at least the JSON size of model-like objects with date-times", () => {
    // Keys are escaped like strings: fast-check's counterexample in CI (seed 1137103964), and a key of many.
    for (const value of [{ "\"\"": "" }, { ["\u0001".repeat(50)]: "", "é\n": 1 }]) {
      assert.isAtLeast(approximateJsonBytes(value), utf8(value), JSON.stringify(value))
    }
    const item = { id: "x", at: DateTime.makeUnsafe(0), tags: ["a", "b"], n: 12345.678, none: null }
    assert.isAtLeast(approximateJsonBytes(item), utf8({ ...item, at: "1970-01-01T00:00:00.000Z" }))
  })

  it("fittingCount stops before the item that passes the budget, and keeps at least one", () => {
    const megabyte = "x".repeat(1_048_576)
    const items = Array.from({ length: 10 }, () => ({ content: megabyte }))
    assert.strictEqual(fittingCount(items), 3)
    assert.isAtMost(utf8(items.slice(0, 3)), PAGE_BYTE_BUDGET)
    assert.strictEqual(fittingCount([{ content: "x".repeat(PAGE_BYTE_BUDGET * 2) }]), 1)
    assert.strictEqual(fittingCount([]), 0)
    assert.strictEqual(fittingCount([{ a: 1 }, { b: 2 }]), 2)
  })

  it("fittingCount counts exactly when the quick bound (6 bytes a character) passes the budget", () => {
    // Three items of 1 KB of ASCII: 3 KB exactly, 18 KB by the bound. A 4 KB budget keeps all three by the
    // exact count, a 2.5 KB one two; the bound alone would have cut both pages.
    const items = Array.from({ length: 3 }, () => ({ content: "x".repeat(1_000) }))
    assert.strictEqual(fittingCount(items, 4_000), 3)
    assert.strictEqual(fittingCount(items, 2_500), 2)
    // Control characters take 6 bytes each: the bound is then exact, and the page is cut by it.
    const escaped = Array.from({ length: 3 }, () => ({ content: "\u0001".repeat(1_000) }))
    assert.strictEqual(fittingCount(escaped, 13_000), 2)
    assert.isAtMost(utf8(escaped.slice(0, 2)), 13_000)
  })
})
