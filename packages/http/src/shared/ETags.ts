/**
 * `ETag` and `If-Match` over HTTP (D52): single-resource answers carry the resource's strong entity tag (core's
 * `entityTag`, a hash of the JSON the API returns); `PUT` and `DELETE` pass `If-Match` to core, which checks it
 * atomically with the write and fails with 412 `PRECONDITION_FAILED` when it no longer matches.
 */
import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { entityTag, type WriteOptions } from "@support-engine/core"
import { Effect, FiberRef, type Schema } from "effect"

/** The request's `If-Match` as core's write options. */
export const writeOptions: Effect.Effect<WriteOptions, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => ({ ifMatch: request.headers["if-match"] })
)

/**
 * The tag the current request's answer will carry: the header is set by a pre-response handler when the answer
 * is sent, after the middleware has seen the response, so IdempotencyKeys.ts reads the tag to record it here.
 */
export const currentETag = FiberRef.unsafeMake<string | undefined>(undefined)

/** Sets `ETag` on the answer to the resource `self` succeeds with. */
export const withETag = <A, I>(schema: Schema.Schema<A, I>) => {
  const tagOf = entityTag(schema)
  return <E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.tap(self, (value) => {
      const etag = tagOf(value)
      return Effect.zipRight(
        FiberRef.set(currentETag, etag),
        HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "etag", etag))
        )
      )
    })
}
