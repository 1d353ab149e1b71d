/**
 * `Idempotency-Key` over HTTP (D52; core's Idempotency.ts has the rules). A keyed `POST`, `PUT` or `DELETE` runs
 * inside `Idempotency.run`: the handler's writes and the recorded answer (status, body, `Content-Type`, `ETag`,
 * `Location`) commit together; a retry gets that answer again with `Idempotent-Replayed: true`. Answers of 400
 * and above are not recorded (the request's transaction rolls back; a retry runs again).
 *
 * The key is scoped to the token's workspace, so the token is resolved here before the router resolves it again;
 * a request whose token does not resolve goes on unkeyed and gets its 401 from the router.
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
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
import { Effect, Either, FiberRef, Option, Redacted } from "effect"
import { answerTag } from "./ETags.js"
import { currentRequestFacts, type RequestFacts } from "./RequestLog.js"

const KEYED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"])
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])
const REPLAYED_HEADERS = ["content-type", "etag", "location"] as const
const utf8 = new TextDecoder()

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
  const body = response.body._tag === "Uint8Array" ? utf8.decode(response.body.body) : ""
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

export class IdempotencyKeys extends Effect.Service<IdempotencyKeys>()("@support-engine/http/IdempotencyKeys", {
  effect: Effect.gen(function*() {
    const idempotency = yield* Idempotency
    const tokens = yield* Tokens

    const keyed = <E, R>(app: HttpApp.Default<E, R>, key: string, bearer: string): HttpApp.Default<E | KeyError, R> =>
      Effect.gen(function*() {
        const principal = yield* Effect.either(tokens.authenticate(Redacted.make(bearer)))
        if (Either.isLeft(principal)) return yield* app
        // The request as the router sees it: inside the JSON body rules, whose reader the fingerprint shares.
        const request = yield* HttpServerRequest.HttpServerRequest
        // The JSON body rules (JsonBody.ts) have parsed it already; a body they refuse goes on to fail as usual.
        const body = BODY_METHODS.has(request.method) ? yield* Effect.either(request.json) : Either.right(undefined)
        if (Either.isLeft(body)) return yield* app
        const fingerprint = requestFingerprint(request.method, request.url, body.right)
        const work = Effect.flatMap(
          app,
          (response) =>
            Effect.map(FiberRef.get(currentRequestFacts), (facts) => ({
              response,
              etag: Option.isSome(facts) ? facts.value.etag : null
            }))
        )
        const result = yield* idempotency.run(principal.right.workspaceId, key, fingerprint, work, recordOf)
        return result._tag === "Fresh" ? result.value.response : replay(result.outcome)
      })

    /**
     * `app` with `Idempotency-Key` honoured on writes. Other requests get `app` itself, decided from `request`'s
     * method and headers before any effect runs.
     */
    const around = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      app: HttpApp.Default<E, R>
    ): HttpApp.Default<E | KeyError, R> => {
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
}) {}
