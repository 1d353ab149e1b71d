/** The typed client of the API for TypeScript hosts: every endpoint, with core's request and error types. */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, FiberRef, identity, type Redacted } from "effect"
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
 * A client for every endpoint: `client.companies.create({ payload })`, `client.companies.get({ path: { id } })`.
 * Failures are the core error classes (`NotFound`, `ValidationError`, ...) decoded from the responses. Pass
 * `withResponse: true` to read response headers such as `ETag` or `RateLimit`.
 */
export const makeClient = (options: ClientOptions = {}) => {
  const { token } = options
  return HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      addExtraHeaders(
        (token === undefined ? identity : HttpClient.mapRequest(HttpClientRequest.bearerToken(token)))(client)
      )
  })
}

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>
