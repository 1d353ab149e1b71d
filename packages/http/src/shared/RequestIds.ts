/**
 * Request ids (D12) and the request log: every response carries `X-Request-Id`, the caller's when it is a
 * well-formed id (1 to 128 letters, digits, `_`, `.`, `:`, `-`), else a new UUID; every log line written while the
 * request runs is annotated `request_id`; and once the answer is ready, one step gives it the headers the request's
 * facts hold (RequestLog.ts) and writes one line at info that describes it.
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { IdGenerator } from "@support-engine/core"
import { Clock, Effect } from "effect"
import { answerTag } from "./ETags.js"
import { CurrentRequestFacts, logRequest, type RequestFacts } from "./RequestLog.js"

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The headers an answer gets from the request's facts, its `ETag` included when the route gave it one. */
const answerHeaders = (facts: RequestFacts, response: HttpServerResponse.HttpServerResponse) => {
  if (facts.etag === null || response.status >= 300) return facts.headers
  const etag = facts.etag === true ? answerTag(response) : facts.etag
  return etag === undefined ? facts.headers : { ...facts.headers, etag }
}

/** What runs inside the request's scope: the request, its facts, and the time it arrived (ms, Effect's `Clock`). */
export type ScopedApp<E, R> = (
  request: HttpServerRequest.HttpServerRequest,
  facts: RequestFacts,
  arrivedMillis: number
) => HttpApp.Default<E, R>

export class RequestIds extends Effect.Service<RequestIds>()("@support-engine/http/RequestIds", {
  effect: Effect.gen(function*() {
    const ids = yield* IdGenerator
    /** `app` under the request's id and facts: the answer's headers, the log annotation and the request line. */
    const around = <E, R>(app: ScopedApp<E, R>): HttpApp.Default<E, R> =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeNanos
        const request = yield* HttpServerRequest.HttpServerRequest
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : yield* ids.uuid
        // Filled in by the steps that run the request, read when the answer is ready, whatever it is.
        const facts: RequestFacts = {
          route: null,
          workspaceId: null,
          headers: { "x-request-id": requestId },
          etag: null
        }
        yield* HttpApp.appendPreResponseHandler((answered, response) =>
          Effect.flatMap(Clock.currentTimeNanos, (ended) =>
            Effect.as(
              logRequest(answered, response, requestId, facts, started, ended),
              HttpServerResponse.setHeaders(response, answerHeaders(facts, response))
            ))
        )
        return yield* app(request, facts, Number(started / 1_000_000n)).pipe(
          Effect.provideService(CurrentRequestFacts, facts),
          Effect.annotateLogs("request_id", requestId)
        )
      })
    return { around } as const
  })
}) {}
