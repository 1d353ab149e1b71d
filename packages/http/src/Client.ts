/** The typed client of the API for TypeScript hosts: every endpoint, with core's request and error types. */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { fieldErrors, ValidationError } from "@support-engine/core"
import { Effect, Either, FiberRef, identity, ParseResult, Predicate, type Redacted, Schema } from "effect"
import { Api } from "./Api.js"

export interface ClientOptions {
  /** Where the server answers, for example `http://127.0.0.1:8080` (the client adds `/v1/...`). */
  readonly baseUrl?: string | URL
  /** A workspace API token, sent as `Authorization: Bearer`. */
  readonly token?: string | Redacted.Redacted<string>
}

/** Headers the client adds to every request made inside `withHeaders`. */
const extraHeaders = FiberRef.unsafeMake<Readonly<Record<string, string>>>({})

/**
 * Sends `headers` with every request `self` makes (D52): `If-Match` on an update or delete,
 * `Idempotency-Key` on a create, for example
 * `client.customers.update({ path, payload }).pipe(withHeaders({ "if-match": etag }))`.
 */
export const withHeaders = (headers: Readonly<Record<string, string>>) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.locallyWith(self, extraHeaders, (current) => ({ ...current, ...headers }))

const addExtraHeaders = HttpClient.mapRequestEffect((request: HttpClientRequest.HttpClientRequest) =>
  Effect.map(
    FiberRef.get(extraHeaders),
    (headers) => Object.keys(headers).length === 0 ? request : HttpClientRequest.setHeaders(request, headers)
  )
)

/**
 * Parse errors raised while decoding a server's answer. `transformResponse` sees only the decoding of answers, so a
 * parse error that is not in this set was raised while encoding the request, before anything was sent.
 */
const answerErrors = new WeakSet<object>()

const markAnswerErrors = (effect: Effect.Effect<unknown, unknown>) =>
  Effect.tapError(effect, (error) => {
    if (ParseResult.isParseError(error)) answerErrors.add(error)
    return Effect.void
  })

/**
 * The request schemas stop at their first error (shared/Requests.ts): a refused request is encoded again from the
 * failure's root with `errors: "all"`, so the client reports every field error, as the server does (D13).
 */
const everyError = (error: ParseResult.ParseError): ParseResult.ParseError => {
  const { issue } = error
  // A root issue names the schema that failed; only a field's issue can be missing, unexpected or a pointer.
  if (issue._tag === "Missing" || issue._tag === "Unexpected" || issue._tag === "Pointer") return error
  return Either.match(ParseResult.encodeUnknownEither(Schema.make(issue.ast), { errors: "all" })(issue.actual), {
    onLeft: (all) => new ParseResult.ParseError({ issue: all }),
    onRight: () => error
  })
}

/**
 * A request the client refuses before sending fails with the same `ValidationError` (and the same plain field
 * messages, D51) that the server would answer with a 422, so a host handles both in one place. A malformed answer
 * from the server stays a `ParseError`: it is not the caller's input that is wrong.
 */
const requestErrorsAsValidation =
  (method: (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>) => (...args: ReadonlyArray<unknown>) =>
    Effect.catchIf(
      method(...args),
      (error) => ParseResult.isParseError(error) && !answerErrors.has(error),
      (error) => Effect.fail(new ValidationError({ errors: fieldErrors(everyError(error as ParseResult.ParseError)) }))
    )

/** Wraps every endpoint of a client made by `HttpApiClient.make`: groups of methods, and top-level methods. */
const wrapMethods = (value: unknown): unknown => {
  if (Predicate.isFunction(value)) {
    return requestErrorsAsValidation(value as (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>)
  }
  if (!Predicate.isRecord(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, wrapMethods(member)]))
}

/**
 * A client for every endpoint: `client.companies.create({ payload })`, `client.companies.get({ path: { id } })`.
 * Failures are the core error classes (`NotFound`, `ValidationError`, ...) decoded from the responses, and a
 * request that does not pass the schemas fails with `ValidationError` before it is sent. Pass `withResponse: true`
 * to read response headers such as `ETag` or `RateLimit`.
 */
export const makeClient = (options: ClientOptions = {}) => {
  const { token } = options
  return HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformResponse: markAnswerErrors,
    transformClient: (client) =>
      addExtraHeaders(
        (token === undefined ? identity : HttpClient.mapRequest(HttpClientRequest.bearerToken(token)))(client)
      )
  }).pipe(
    // The wrapped methods keep their types: ValidationError is one of the API's declared errors (Api.ts).
    Effect.map((client) => wrapMethods(client) as typeof client)
  )
}

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>
