/**
 * `q` on lists: the words of a query, for the storage adapters' full-text indexes. A word is a run of
 * letters or digits, lower-cased; every word must match, each as a prefix (`ada` finds `Adams`). Anything else in
 * the query (quotes, operators, punctuation) only separates words, so no query can change the search syntax.
 */
import { Effect, Schema } from "effect"
import { ValidationError } from "./Errors.js"
import { StoredString } from "./Validation.js"

/** `q` as sent: at most 200 characters. */
export const SearchText = StoredString.check(Schema.isMaxLength(200)).annotate({
  description: "Full-text search: every word (letters and digits) must match, as a prefix, case-insensitive; " +
    "best match first. Paged by page number only (not with cursor or updated_since)."
})

/** At most this many words are used; more would only narrow a search that is already selective. */
const MAX_TERMS = 16

/** The words of `q`; a 422 on `q` when it has none. */
export const searchTerms = (q: string): Effect.Effect<ReadonlyArray<string>, ValidationError> => {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return words.length === 0
    ? Effect.fail(ValidationError.field("q", "must contain a letter or a digit"))
    : Effect.succeed(words.slice(0, MAX_TERMS))
}
