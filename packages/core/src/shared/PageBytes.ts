/**
 * The byte budget of a list page (docs/limits.md). Items are bounded one by one, but a page of 100 messages
 * of 1 MiB each, or of articles with 100 translations, or of events carrying them, would still be hundreds of MB of
 * JSON. A page stops before the item that would take it past `PAGE_BYTE_BUDGET`; it always holds at least one item.
 */
import { DateTime, Predicate } from "effect"

/** 4 MiB of JSON per page: far above any page of ordinary items, a few tens of milliseconds to encode. */
export const PAGE_BYTE_BUDGET = 4 * 1_048_576

/**
 * The bytes `s` takes as a JSON string in UTF-8, quotes included, as `JSON.stringify` writes it: control
 * characters escaped (`\n` in 2 bytes, the rest as `\u00XX` in 6), `"` and `\` in 2, then UTF-8's 1 to 3 bytes per
 * UTF-16 unit (a surrogate pair's 4 bytes are 2 per unit).
 */
export const jsonStringBytes = (s: string): number => {
  let bytes = 2
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6
    else if (c === 0x22 || c === 0x5c) bytes += 2
    else if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdfff) bytes += 2
    else bytes += 3
  }
  return bytes
}

/** What a value other than a string costs at most once encoded: a number, a boolean, a date-time, a null. */
const SCALAR_BYTES = 32

/** The most bytes `s` can take as a JSON string: 6 per UTF-16 unit (`\u00XX`), and its quotes. */
const maxJsonStringBytes = (s: string): number => 2 + 6 * s.length

/** `value`'s JSON size as `stringBytes` counts its strings and keys, every scalar and date-time a fixed allowance. */
const jsonBytesBy = (value: unknown, stringBytes: (s: string) => number): number => {
  let bytes = 0
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === "string") bytes += stringBytes(next)
    else if (Array.isArray(next)) {
      bytes += 2 + next.length
      for (const item of next) pending.push(item)
    } else if (Predicate.isObject(next) && !DateTime.isDateTime(next) && typeof next !== "function") {
      bytes += 2
      // Own enumerable keys, as `Object.entries` gives them, without its array of pairs per object: the walk runs
      // over every item of every list page.
      for (const key in next) {
        if (!Object.hasOwn(next, key)) continue
        // The key as JSON writes it (escapes and UTF-8 included), its colon and the comma after the member.
        bytes += stringBytes(key) + 2
        pending.push(Reflect.get(next, key))
      }
    } else bytes += SCALAR_BYTES
  }
  return bytes
}

/**
 * An upper estimate of `value`'s JSON size: strings and keys counted exactly, every scalar and date-time as a fixed
 * allowance. Model instances are walked by their own fields, which are what their schemas encode.
 */
export const approximateJsonBytes = (value: unknown): number => jsonBytesBy(value, jsonStringBytes)

/**
 * How many of `items`, from the first, fit in `budget` bytes; at least one when there is one. A page whose strings
 * could not exceed the budget even at 6 bytes a character is whole without counting them character by character:
 * that is nearly every page, and counting every character would be a visible part of every list request.
 */
export const fittingCount = <A>(items: ReadonlyArray<A>, budget: number = PAGE_BYTE_BUDGET): number => {
  let bound = 0
  for (let i = 0; i < items.length && bound <= budget; i++) bound += jsonBytesBy(items[i], maxJsonStringBytes)
  if (bound <= budget) return items.length
  let total = 0
  for (let i = 0; i < items.length; i++) {
    total += approximateJsonBytes(items[i])
    if (total > budget) return Math.max(1, i)
  }
  return items.length
}
