/**
 * List cursors: an opaque token naming the last row a client has seen, so that the next page starts after
 * that row by key (keyset) instead of by offset. Rows inserted or deleted meanwhile cannot shift it.
 *
 * The token is base64url of a small JSON object. Opaque means clients must not build or read it; it is not a
 * secret (it holds a timestamp and an id the client has already seen), so it is neither signed nor encrypted.
 */
import { DateTime, Effect, Option, Result, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import { ValidationError } from "./Errors.js"

/**
 * Which order a listing runs in: `newest` is the default order of every list (newest first by its time column,
 * then id); `updated` is the sync order of `updated_since` (oldest first by `updated_at`, then id).
 */
export type ListOrder = "newest" | "updated"

/** Where a keyset page starts: strictly after the row with this sort time and id, in `order`. */
export interface Position {
  readonly order: ListOrder
  readonly at: DateTime.Utc
  readonly id: string
}

const Token = Schema.fromJsonString(Schema.Struct({
  o: Schema.Literals(["n", "u"]),
  t: Schema.Int,
  i: Schema.String.check(Schema.isMaxLength(64))
}))
const decodeToken = Schema.decodeUnknownOption(Token)

/** The opaque token for a position. */
export const encodeCursor = (position: Position): string =>
  Base64Url.encode(JSON.stringify({
    o: position.order === "newest" ? "n" : "u",
    t: position.at.epochMilliseconds,
    i: position.id
  }))

const invalid = ValidationError.field("cursor", "must be a cursor from a previous answer")

/** The position a token names; any token this engine did not make is a 422 on `cursor`. */
export const decodeCursor = (token: string): Effect.Effect<Position, ValidationError> => {
  const text = Base64Url.decodeString(token)
  if (Result.isFailure(text)) return Effect.fail(invalid)
  const decoded = decodeToken(text.success)
  if (Option.isNone(decoded)) return Effect.fail(invalid)
  const at = DateTime.make(decoded.value.t)
  if (Option.isNone(at)) return Effect.fail(invalid)
  return Effect.succeed({ order: decoded.value.o === "n" ? "newest" : "updated", at: at.value, id: decoded.value.i })
}
