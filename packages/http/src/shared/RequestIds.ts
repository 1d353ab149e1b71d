/**
 * Request ids (D12) and the request log: every response carries `X-Request-Id`, the caller's when it is a
 * well-formed id (1 to 128 letters, digits, `_`, `.`, `:`, `-`), else a new UUID; every log line written while the
 * request runs is annotated `request_id`; and once the answer is ready, one line at info describes it
 * (RequestLog.ts).
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { IdGenerator } from "@support-engine/core"
import { Clock, Effect } from "effect"
import { CurrentRequestFacts, logRequest, type RequestFacts } from "./RequestLog.js"

const REQUEST_ID = /^[\w.:-]{1,128}$/

export class RequestIds extends Effect.Service<RequestIds>()("@support-engine/http/RequestIds", {
  effect: Effect.gen(function*() {
    const ids = yield* IdGenerator
    /** `app` under the request's id: the response header, the log annotation and the request line. */
    const around = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeNanos
        const request = yield* HttpServerRequest.HttpServerRequest
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : yield* ids.uuid
        // Filled in by the route (Authentication), read when the answer is ready, whatever it is.
        const facts: RequestFacts = { route: null, workspaceId: null }
        yield* HttpApp.appendPreResponseHandler((answered, response) =>
          Effect.flatMap(Clock.currentTimeNanos, (ended) =>
            Effect.as(
              logRequest(answered, response, requestId, facts, started, ended),
              HttpServerResponse.setHeader(response, "x-request-id", requestId)
            ))
        )
        return yield* app.pipe(
          Effect.provideService(CurrentRequestFacts, facts),
          Effect.annotateLogs("request_id", requestId)
        )
      })
    return { around } as const
  })
}) {}
