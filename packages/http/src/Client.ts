/** The typed client of the API for TypeScript hosts: every endpoint, with core's request and error types. */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import type { Effect } from "effect"
import { identity, type Redacted } from "effect"
import { Api } from "./Api.js"

export interface ClientOptions {
  /** Where the server answers, for example `http://127.0.0.1:8080` (the client adds `/v1/...`). */
  readonly baseUrl?: string | URL
  /** A workspace API token, sent as `Authorization: Bearer`. */
  readonly token?: string | Redacted.Redacted<string>
}

/**
 * A client for every endpoint: `client.companies.create({ payload })`, `client.companies.get({ path: { id } })`.
 * Failures are the core error classes (`NotFound`, `ValidationError`, ...) decoded from the responses.
 */
export const makeClient = (options: ClientOptions = {}) => {
  const { token } = options
  return HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: token === undefined ? identity : HttpClient.mapRequest(HttpClientRequest.bearerToken(token))
  })
}

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>
