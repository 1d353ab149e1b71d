/**
 * ISO 8601 UTC text and epoch milliseconds, converted by arithmetic instead of through `Date`.
 *
 * Every timestamp of every answer, event body and stored row passes through one of these: a list page of customers
 * formats 60 and reads 64, and `toISOString` and `Date.parse` were a visible share of a list request
 * (docs/performance.md). Outside the years 0000-9999, or for text that is not exactly the fixed form, both directions
 * fall back to `Date`, so what they answer is always what `Date` would.
 */

const DAY_MS = 86_400_000
/** 9999-12-31T23:59:59.999Z: the last instant whose ISO form has a four-digit year. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`))
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`))

/**
 * `YYYY-MM-DDTHH:MM:SS.mmm` of an instant in UTC (no zone suffix). Proleptic Gregorian calendar from the day count,
 * as Howard Hinnant's `civil_from_days` computes it.
 */
const civil = (ms: number): string => {
  const days = Math.floor(ms / DAY_MS)
  let rest = ms - days * DAY_MS
  const shifted = days + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1_000)
  return TWO_DIGITS[Math.floor(year / 100)]! + TWO_DIGITS[year % 100]! + "-" + TWO_DIGITS[month]! + "-" +
    TWO_DIGITS[day]! + "T" + TWO_DIGITS[hours]! + ":" + TWO_DIGITS[minutes]! + ":" + TWO_DIGITS[seconds]! + "." +
    THREE_DIGITS[rest - seconds * 1_000]!
}

const inFastRange = (ms: number): boolean => Number.isInteger(ms) && ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR_MS

/** What `new Date(ms).toISOString()` answers: `2026-11-21T15:07:00.123Z` (and throws the same for an invalid time). */
export const isoUtc = (ms: number): string => (inFastRange(ms) ? civil(ms) + "Z" : new Date(ms).toISOString())

/** The same instant with a numeric offset, `2026-11-21T15:07:00.123+00:00`: the form answers and events show. */
export const isoUtcWithOffset = (ms: number): string =>
  inFastRange(ms) ? civil(ms) + "+00:00" : `${new Date(ms).toISOString().slice(0, -1)}+00:00`

const digit = (text: string, at: number): number => {
  const code = text.charCodeAt(at) - 48
  return code >= 0 && code <= 9 ? code : Number.NaN
}
const twoDigits = (text: string, at: number): number => digit(text, at) * 10 + digit(text, at + 1)

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28)
    : month === 4 || month === 6 || month === 9 || month === 11
    ? 30
    : 31

/**
 * What `Date.parse` answers for `text`. Text in exactly the form `isoUtc` writes (`YYYY-MM-DDTHH:MM:SS.mmmZ`, the
 * form SQLite stores) is read digit by digit; anything else, or an impossible date in that form, goes to
 * `Date.parse`.
 */
export const parseIsoUtc = (text: string): number => {
  if (
    text.length !== 24 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 ||
    text.charCodeAt(23) !== 90
  ) return Date.parse(text)
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2)
  const month = twoDigits(text, 5)
  const day = twoDigits(text, 8)
  const hours = twoDigits(text, 11)
  const minutes = twoDigits(text, 14)
  const seconds = twoDigits(text, 17)
  const millis = digit(text, 20) * 100 + twoDigits(text, 21)
  // NaN (a character that is not a digit) fails every comparison. Date.UTC reads years 0-99 as 1900-1999, so those
  // rare years go to Date.parse too.
  if (
    !(year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hours <= 23 &&
      minutes <= 59 && seconds <= 59 && millis >= 0)
  ) return Date.parse(text)
  return Date.UTC(year, month - 1, day, hours, minutes, seconds, millis)
}
