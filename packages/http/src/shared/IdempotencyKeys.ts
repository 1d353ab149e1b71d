/**
 * `Idempotency-Key` over HTTP (core's Idempotency.ts has the rules). A keyed `POST`, `PUT` or `DELETE` runs
 * inside `Idempotency.run`: the handler's writes and the recorded answer (status, body, `Content-Type`, `ETag`,
 * `Location`) commit together; a retry gets that answer again with `Idempotent-Replayed: true`. Answers of 400
 * and above are not recorded (the request's transaction rolls back; a retry runs again).
 *
 * The key is scoped to the token's workspace, so the token is resolved here before the router resolves it again;
 * a request whose token does not resolve goes on unkeyed and gets its 401 from the router.
 */
import {
  Idempotency,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type IdempotentOutcome,
  type PersistenceError,
  requestFingerprint,
  Tokens,
  ValidationError
} from "@support-engine/core"
import { Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { answerTag, answerText } from "./ETags.js"
import { CurrentRequestFacts, type RequestFacts } from "./RequestLog.js"

const KEYED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"])
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])
const REPLAYED_HEADERS = ["content-type", "etag", "location"] as const
/**
 * What to keep of a response: its status, text body and the headers a retry should see again, the entity tag
 * included (it is set when the answer is sent, after this sees it); 4xx/5xx: nothing.
 */
const recordOf = (
  { etag: source, response }: {
    readonly response: HttpServerResponse.HttpServerResponse
    readonly etag: RequestFacts["etag"]
  }
): Option.Option<IdempotentOutcome> => {
  if (response.status >= 400) return Option.none()
  const body = answerText(response) ?? ""
  const headers: Record<string, string> = {}
  for (const name of REPLAYED_HEADERS) {
    const value = name === "content-type" && response.body._tag === "Uint8Array"
      ? response.body.contentType
      : response.headers[name]
    if (value !== undefined) headers[name] = value
  }
  const etag = source === true ? answerTag(response) : source
  if (etag !== null && etag !== undefined) headers["etag"] = etag
  return Option.some({ status: response.status, body, headers })
}

const replay = (outcome: IdempotentOutcome): HttpServerResponse.HttpServerResponse => {
  const { "content-type": contentType, ...rest } = outcome.headers
  const headers = { ...rest, "idempotent-replayed": "true" }
  return outcome.body === ""
    ? HttpServerResponse.empty({ status: outcome.status, headers })
    : HttpServerResponse.text(outcome.body, {
      status: outcome.status,
      headers,
      contentType: contentType ?? "application/json"
    })
}

type KeyError = ValidationError | IdempotencyKeyInUse | IdempotencyKeyReused | PersistenceError

type App<E, R> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

export class IdempotencyKeys extends Context.Service<IdempotencyKeys>()("@support-engine/http/IdempotencyKeys", {
  make: Effect.gen(function*() {
    const idempotency = yield* Idempotency
    const tokens = yield* Tokens

    const keyed = <E, R>(
      app: App<E, R>,
      key: string,
      bearer: string
    ): App<E | KeyError, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function*() {
        const principal = yield* Effect.result(tokens.authenticate(Redacted.make(bearer)))
        if (Result.isFailure(principal)) return yield* app
        // The request as the router sees it: inside the JSON body rules, whose reader the fingerprint shares.
        const request = yield* HttpServerRequest.HttpServerRequest
        // The JSON body rules (JsonBody.ts) read it: a body they refuse ends the request here with its 400, 413 or 415.
        const body = BODY_METHODS.has(request.method) ? yield* Effect.result(request.json) : Result.succeed(undefined)
        if (Result.isFailure(body)) return yield* app
        const fingerprint = requestFingerprint(request.method, request.url, body.success)
        const work = Effect.flatMap(
          app,
          (response) => Effect.map(CurrentRequestFacts, (facts) => ({ response, etag: facts?.etag ?? null }))
        )
        const result = yield* idempotency.run(principal.success.workspaceId, key, fingerprint, work, recordOf)
        return result._tag === "Fresh" ? result.value.response : replay(result.outcome)
      })

    /**
     * `app` with `Idempotency-Key` honoured on writes. Other requests get `app` itself, decided from `request`'s
     * method and headers before any effect runs.
     */
    const around = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      app: App<E, R>
    ): App<E | KeyError, R | HttpServerRequest.HttpServerRequest> => {
      const key = request.headers["idempotency-key"]
      if (key === undefined || !KEYED_METHODS.has(request.method)) return app
      const authorization = request.headers["authorization"]
      const bearer = authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined
      if (bearer === undefined) return app
      if (key.length === 0 || key.length > 255) {
        return Effect.fail(ValidationError.field("idempotency_key", "must be 1 to 255 characters"))
      }
      return keyed(app, key, bearer)
    }

    return { around } as const
  })
}) {
  static readonly layer: Layer.Layer<IdempotencyKeys, never, Idempotency | Tokens> = Layer.effect(this, this.make)
}
