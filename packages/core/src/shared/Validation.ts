/**
 * Decoding untyped input (the Promise facade, CLI arguments) into request schemas, with failures keyed by request
 * field like every validation failure. HttpApi decodes its own requests; the HTTP adapter renders its parse errors
 * through `fieldErrors` too, so both faces report the same keys and messages.
 */
import { Effect, Schema } from "effect"
import { type FieldErrors, ValidationError } from "./Errors.js"
import { plainIssues } from "./ValidationMessages.js"

/** Longest message a field error carries: a schema author's message could otherwise be of any length. */
export const MAX_MESSAGE_LENGTH = 200

const shorten = (message: string): string =>
  message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`

/**
 * The field errors of decode issues (the in-process decoders' and HttpApi's alike): keyed by dotted request
 * path (`agent_ids.0`), `body` for the root, each message once. The messages are the plain ones of
 * ValidationMessages.ts; this only groups them.
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

/** Field errors of a schema error. */
export const fieldErrors = (error: Schema.SchemaError): FieldErrors => fieldErrorsFromIssues(plainIssues(error.issue))

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> => {
  if (typeof value !== "object" || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * The input as a JSON round trip would hand it over: every key whose value is `undefined` left out, in plain objects
 * at any depth (arrays' objects included). Optional request fields are optional keys: JSON cannot send `undefined`,
 * and `null` is refused where a field is not nullable, so an in-process caller's `{ tone: undefined }` means what a
 * JSON client's absent key means. Input without such keys is returned as it is, uncopied.
 */
export const withoutUndefinedKeys = (input: unknown): unknown => {
  if (Array.isArray(input)) {
    let out: Array<unknown> | undefined
    input.forEach((item: unknown, index) => {
      const cleaned = withoutUndefinedKeys(item)
      if (cleaned !== item) (out ??= [...input])[index] = cleaned
    })
    return out ?? input
  }
  if (!isPlainObject(input)) return input
  let changed = false
  const entries: Array<readonly [string, unknown]> = []
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) {
      changed = true
      continue
    }
    const cleaned = withoutUndefinedKeys(value)
    if (cleaned !== value) changed = true
    entries.push([key, cleaned])
  }
  return changed ? Object.fromEntries(entries) : input
}

/**
 * Decodes `input` with `schema`, failing with a `ValidationError` that lists every field error. Unknown
 * fields are ignored, and so are keys holding `undefined` (`withoutUndefinedKeys`), as a JSON body would have
 * them. Valid input is decoded once, stopping at the first failure; only input that fails is decoded again with
 * `errors: "all"` for the whole report, which visits every field and check: most input is valid.
 */
export const decodeRequest = <A, I>(schema: Schema.Codec<A, I>) => {
  const decode = Schema.decodeUnknownEffect(schema)
  const decodeEveryError = Schema.decodeUnknownEffect(schema, { errors: "all" })
  return (input: unknown): Effect.Effect<A, ValidationError> => {
    const plain = withoutUndefinedKeys(input)
    return Effect.catch(
      decode(plain),
      () => Effect.mapError(decodeEveryError(plain), (error) => new ValidationError({ errors: fieldErrors(error) }))
    )
  }
}

/** U+0000, or a UTF-16 surrogate that is not half of a pair (an emoji's pair is fine). */
const NUL = /\u0000/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * A string every database stores as sent: PostgreSQL refuses U+0000 in text (a 500 before this check) and
 * SQLite silently replaces lone surrogates, so both are refused here, in core, for every face of the engine.
 */
export const StoredString = Schema.String.check(
  Schema.makeFilter((s: string) =>
    NUL.test(s) ?
      "must not contain NUL (U+0000) characters" :
      LONE_SURROGATE.test(s) ?
      "must not contain unpaired UTF-16 surrogates" :
      true
  )
)

/** A string of at most `max` characters (65,535 where the contract lists no bound), storable. */
export const BoundedString = (max: number) => StoredString.check(Schema.isMaxLength(max))
export const DEFAULT_MAX_LENGTH = 65_535
export const Text = BoundedString(DEFAULT_MAX_LENGTH)

/** An absolute http(s) URL of at most 2,048 characters. */
export const HttpUrl = StoredString.check(
  Schema.isMaxLength(2048),
  Schema.makeFilter((s: string) => {
    try {
      const url = new URL(s)
      return url.protocol === "http:" || url.protocol === "https:" || "must be an absolute http(s) URL"
    } catch {
      return "must be an absolute http(s) URL"
    }
  })
)

/**
 * An email address (the shape check every mail client agrees on; deliverability is not checked). The RegExp is `u`
 * so that Effect writes it into JSON Schema as `pattern`; it accepts the same strings (a character outside the BMP
 * counts once instead of twice, which `+` does not see).
 */
export const Email = StoredString.check(
  Schema.isMaxLength(255),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/u, { message: "must be a valid email address" })
)
