/**
 * Request ids (D12) and the request log: every response carries `X-Request-Id`, the caller's when it is a
 * well-formed id (1 to 128 letters, digits, `_`, `.`, `:`, `-`), else a new UUID; every log line written while the
 * request runs is annotated `request_id`; and once the answer is ready, one step gives it the headers the request's
 * facts hold (RequestLog.ts) and writes one line at info that describes it.
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { IdGenerator } from "@support-engine/core"
import { Clock, Effect, FiberRef, HashMap, Option } from "effect"
import { answerTag } from "./ETags.js"
import { currentRequestFacts, logRequest, type RequestFacts } from "./RequestLog.js"

const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * The answer with the headers of the request's facts, its `ETag` included when the route gave it one. One
 * `setHeader` per header rather than one `setHeaders`: `setHeaders` spreads a `Headers` object (whose prototype
 * is not `Object.prototype`) into a literal, which V8 copies on a slow path: 13 to 22 µs for four headers here
 * against 3 to 5 µs for four `setHeader`s, the response's construction included (docs/performance.md).
 */
const withAnswerHeaders = (facts: RequestFacts, response: HttpServerResponse.HttpServerResponse) => {
  const etag = facts.etag === null || response.status >= 300
    ? undefined
    : facts.etag === true
    ? answerTag(response)
    : facts.etag
  const answer = Object.entries(facts.headers).reduce(
    (answer, [name, value]) => HttpServerResponse.setHeader(answer, name, value),
    response
  )
  return etag === undefined ? answer : HttpServerResponse.setHeader(answer, "etag", etag)
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
        // The request's fiber carries its facts and its id's log annotation from here to its end: set, not
        // scoped, as the platform's own pre-response handlers are (RequestLog.ts says why).
        yield* FiberRef.set(currentRequestFacts, Option.some(facts))
        yield* FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", requestId))
        yield* HttpApp.appendPreResponseHandler((answered, response) =>
          Effect.flatMap(Clock.currentTimeNanos, (ended) =>
            Effect.as(
              logRequest(answered, response, facts, started, ended),
              withAnswerHeaders(facts, response)
            ))
        )
        return yield* app(request, facts, Number(started / 1_000_000n))
      })
    return { around } as const
  })
}) {}
