/**
 * Request ids (D12): every response carries `X-Request-Id`, the caller's when it is a plausible id, else a new
 * UUID, and every log line written while the request runs is annotated `request_id`.
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { IdGenerator } from "@support-engine/core"
import { Effect } from "effect"

const REQUEST_ID = /^[\w.:-]{1,128}$/

export class RequestIds extends Effect.Service<RequestIds>()("@support-engine/http/RequestIds", {
  effect: Effect.gen(function*() {
    const ids = yield* IdGenerator
    /** `app` under the request's id: the response header and the log annotation. */
    const around = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : yield* ids.uuid
        yield* HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
        )
        return yield* Effect.annotateLogs(app, "request_id", requestId)
      })
    return { around } as const
  })
}) {}
