/** The typed client of the API for TypeScript hosts: every endpoint, with core's request and error types. */
import { fieldErrors, ValidationError } from "@support-engine/core"
import { Context, Effect, identity, Predicate, type Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "./Api.js"

export interface ClientOptions {
  /** Where the server answers, for example `http://127.0.0.1:8080` (the client adds `/v1/...`). */
  readonly baseUrl?: string | URL
  /** A workspace API token, sent as `Authorization: Bearer`. */
  readonly token?: string | Redacted.Redacted<string>
}

/** Headers the client adds to every request made inside `withHeaders`. */
const ExtraHeaders = Context.Reference<Readonly<Record<string, string>>>("@support-engine/http/ClientHeaders", {
  defaultValue: () => ({})
})

/**
 * Sends `headers` with every request `self` makes: `If-Match` on an update or delete,
 * `Idempotency-Key` on a create, for example
 * `client.customers.update({ params, payload }).pipe(withHeaders({ "if-match": etag }))`.
 */
export const withHeaders = (headers: Readonly<Record<string, string>>) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.updateService(self, ExtraHeaders, (current) => ({ ...current, ...headers }))

const addExtraHeaders = HttpClient.mapRequestEffect((request: HttpClientRequest.HttpClientRequest) =>
  Effect.map(
    ExtraHeaders,
    (headers) => Object.keys(headers).length === 0 ? request : HttpClientRequest.setHeaders(request, headers)
  )
)

/**
 * Schema errors raised while decoding a server's answer. `transformResponse` sees only the decoding of answers, so a
 * schema error that is not in this set was raised while encoding the request, before anything was sent.
 */
const answerErrors = new WeakSet<object>()

const markAnswerErrors = (effect: Effect.Effect<unknown, unknown, unknown>) =>
  Effect.tapError(effect, (error) => {
    if (Schema.isSchemaError(error)) answerErrors.add(error)
    return Effect.void
  })

/**
 * A request the client refuses before sending fails with the same `ValidationError` (and the same plain field
 * messages, every one of them: the API's `ParseOptions`, Api.ts) that the server would answer with a 422, so a host
 * handles both in one place. A malformed answer from the server stays a `SchemaError`: it is not the caller's input
 * that is wrong.
 */
const requestErrorsAsValidation =
  (method: (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>) => (...args: ReadonlyArray<unknown>) =>
    Effect.catchIf(
      method(...args),
      (error): error is Schema.SchemaError => Schema.isSchemaError(error) && !answerErrors.has(error),
      (error) => Effect.fail(new ValidationError({ errors: fieldErrors(error) }))
    )

const isMethod = (value: unknown): value is (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown> =>
  Predicate.isFunction(value)

/** Wraps every endpoint of a client made by `HttpApiClient.make`: groups of methods, and top-level methods. */
const wrapMethods = (value: unknown): unknown => {
  if (isMethod(value)) return requestErrorsAsValidation(value)
  if (!Predicate.isObject(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, wrapMethods(member)]))
}

/**
 * A client for every endpoint: `client.companies.create({ payload })`, `client.companies.get({ params: { id } })`.
 * Failures are the core error classes (`NotFound`, `ValidationError`, ...) decoded from the responses, and a
 * request that does not pass the schemas fails with `ValidationError` before it is sent. Pass
 * `responseMode: "decoded-and-response"` to read response headers such as `ETag` or `RateLimit`.
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
    // The wrapped methods keep their types: ValidationError is one of the API's declared errors (ApiErrors.ts).
    Effect.map((client) => wrapMethods(client) as typeof client)
  )
}

export type Client = Effect.Success<ReturnType<typeof makeClient>>
