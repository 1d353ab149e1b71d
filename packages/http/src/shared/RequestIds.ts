/**
 * Request ids and the request log: every response carries `X-Request-Id`, the caller's when it is a
 * well-formed id (1 to 128 letters, digits, `_`, `.`, `:`, `-`), else a new UUID; every log line written while the
 * request runs is annotated `request_id`; and once the answer is ready, one step gives it the headers the request's
 * facts hold (RequestLog.ts) and writes one line at info that describes it.
 */
import { IdGenerator } from "@support-engine/core"
import { Clock, Context, Effect, Layer, References } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { answerTag } from "./ETags.js"
import { recordRequestUnsafe } from "./HttpMetrics.js"
import { CurrentRequestFacts, logRequest, type RequestFacts, routeOf } from "./RequestLog.js"

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** The answer with the headers of the request's facts, its `ETag` included when the route gave it one. */
const withAnswerHeaders = (facts: RequestFacts, response: HttpServerResponse.HttpServerResponse) => {
  const etag = facts.etag === null || response.status >= 300
    ? undefined
    : facts.etag === true
    ? answerTag(response)
    : facts.etag
  // One copy of the answer's headers: the facts' headers are the request's own, read once.
  if (etag !== undefined) facts.headers["etag"] = etag
  return HttpServerResponse.setHeaders(response, facts.headers)
}

/** What runs inside the request's scope: the request, its facts, and the time it arrived (ms, Effect's `Clock`). */
export type ScopedApp<E, R> = (
  request: HttpServerRequest.HttpServerRequest,
  facts: RequestFacts,
  arrivedMillis: number
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

export class RequestIds extends Context.Service<RequestIds>()("@support-engine/http/RequestIds", {
  make: Effect.map(IdGenerator, (ids) => {
    /**
     * `app` under the request's id and facts: the answer's headers, the log annotation and the request line. The
     * id's log annotation and the facts go into the request fiber's context as the router puts the route's there:
     * the server restores the fiber's context when the request ends (RequestLog.ts).
     */
    const under = <E, R>(app: ScopedApp<E, R>, requestId: string) =>
      Effect.withFiber((fiber) => {
        const started = fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        // Filled in by the steps that run the request, read when the answer is ready, whatever it is.
        const facts: RequestFacts = {
          route: null,
          workspaceId: null,
          headers: { "x-request-id": requestId },
          etag: null
        }
        const annotations: Record<string, unknown> = {
          ...fiber.getRef(References.CurrentLogAnnotations),
          request_id: requestId
        }
        fiber.setContext(
          Context.add(
            Context.add(fiber.context, References.CurrentLogAnnotations, annotations),
            CurrentRequestFacts,
            facts
          )
        )
        HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, (answered, response) =>
          Effect.withFiber((end) => {
            const ended = end.getRef(Clock.Clock).currentTimeNanosUnsafe()
            const route = routeOf(answered, facts)
            recordRequestUnsafe(answered.method, route, response.status, Number(ended - started) / 1e9, end.context)
            return Effect.as(
              logRequest(answered, response, facts, annotations, route, started, ended),
              withAnswerHeaders(facts, response)
            )
          }))
        return app(request, facts, Number(started / 1_000_000n))
      })

    /** `app` with the request's id: the caller's when well-formed, else a new UUID. */
    const around = <E, R>(app: ScopedApp<E, R>): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
      Effect.withFiber((fiber) => {
        const incoming = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).headers["x-request-id"]
        return incoming !== undefined && REQUEST_ID.test(incoming)
          ? under(app, incoming)
          : Effect.flatMap(ids.uuid, (id) => under(app, id))
      })
    return { around } as const
  })
}) {
  static readonly layer: Layer.Layer<RequestIds, never, IdGenerator> = Layer.effect(this, this.make)
}
