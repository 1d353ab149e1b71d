/**
 * Decoding untyped input (the Promise facade, CLI arguments) into request schemas, with failures in the
 * field-keyed shape of D13. HttpApi decodes its own requests; the HTTP adapter renders its parse errors
 * through `fieldErrors` too, so both faces report the same keys and messages.
 */
import { Effect, ParseResult, Schema } from "effect"
import { type FieldErrors, ValidationError } from "./Errors.js"
import { withPlainMessages } from "./ValidationMessages.js"

/** Longest message a field error carries: a schema author's message could otherwise be of any length. */
export const MAX_MESSAGE_LENGTH = 200

const shorten = (message: string): string =>
  message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`

/**
 * The D13 field errors of decode issues (the in-process decoders' and HttpApi's alike): keyed by dotted request
 * path (`agent_ids.0`), `body` for the root, each message once. The messages are the plain ones of schemas made
 * with `withPlainMessages` (ValidationMessages.ts); this only groups them.
 */
export const fieldErrorsFromIssues = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): FieldErrors => {
  const out: Record<string, Array<string>> = {}
  for (const issue of issues) {
    // An empty message is the silent `undefined` member of an optional field (ValidationMessages.ts).
    if (issue.message === "") continue
    const key = issue.path.length === 0 ? "body" : issue.path.map(String).join(".")
    const messages = (out[key] ??= [])
    const message = shorten(issue.message)
    if (!messages.includes(message)) messages.push(message)
  }
  return out
}

/** Field errors of a parse error (D13). */
export const fieldErrors = (error: ParseResult.ParseError): FieldErrors =>
  fieldErrorsFromIssues(ParseResult.ArrayFormatter.formatErrorSync(error))

/**
 * Decodes `input` with `schema`, failing with a `ValidationError` that lists every field error (D13). Unknown
 * fields are ignored. Valid input is decoded once with Effect's default options; only input that fails is
 * decoded again with `errors: "all"` for the whole report: decode options cost every call an object merge in
 * Effect's parser, and most input is valid (http's Requests.ts does the same).
 */
export const decodeRequest = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const plain = withPlainMessages(schema)
  const decode = Schema.decodeUnknown(plain)
  const decodeEveryError = Schema.decodeUnknown(plain, { errors: "all" })
  return (input: unknown): Effect.Effect<A, ValidationError> =>
    Effect.catchAll(
      decode(input),
      () => Effect.mapError(decodeEveryError(input), (error) => new ValidationError({ errors: fieldErrors(error) }))
    )
}

/** U+0000, or a UTF-16 surrogate that is not half of a pair (an emoji's pair is fine). */
const NUL = /\u0000/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * A string every database stores as sent (D48): PostgreSQL refuses U+0000 in text (a 500 before this check) and
 * SQLite silently replaces lone surrogates, so both are refused here, in core, for every face of the engine.
 */
export const StoredString = Schema.String.pipe(
  Schema.filter((s) =>
    NUL.test(s) ?
      "must not contain NUL (U+0000) characters" :
      LONE_SURROGATE.test(s) ?
      "must not contain unpaired UTF-16 surrogates" :
      true
  )
)

/** A string of at most `max` characters (D33: 65,535 where the contract lists no bound), storable (D48). */
export const BoundedString = (max: number) => StoredString.pipe(Schema.maxLength(max))
export const DEFAULT_MAX_LENGTH = 65_535
export const Text = BoundedString(DEFAULT_MAX_LENGTH)

/** An absolute http(s) URL of at most 2,048 characters. */
export const HttpUrl = StoredString.pipe(
  Schema.maxLength(2048),
  Schema.filter((s) => {
    try {
      const url = new URL(s)
      return url.protocol === "http:" || url.protocol === "https:" || "must be an absolute http(s) URL"
    } catch {
      return "must be an absolute http(s) URL"
    }
  })
)

/** An email address (the shape check every mail client agrees on; deliverability is not checked). */
export const Email = StoredString.pipe(
  Schema.maxLength(255),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be a valid email address" })
)
