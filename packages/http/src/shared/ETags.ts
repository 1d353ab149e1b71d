/**
 * `ETag` and `If-Match` over HTTP: single-resource answers carry the resource's strong entity tag (core's
 * `entityTag`, a hash of the JSON the API returns); `PUT` and `DELETE` pass `If-Match` to core, which checks it
 * atomically with the write and fails with 412 `PRECONDITION_FAILED` when it no longer matches.
 */
import { entityTag, entityTagOfText, type WriteOptions } from "@support-engine/core"
import { Effect, type Schema } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { updateFacts } from "./RequestLog.js"

/** The request's `If-Match` as core's write options. */
export const writeOptions: Effect.Effect<WriteOptions, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => ({ ifMatch: request.headers["if-match"] })
)

const utf8 = new TextDecoder()

/** The text of an answer's body; none for an empty or streamed body. */
export const answerText = (response: HttpServerResponse.HttpServerResponse): string | undefined =>
  response.body._tag === "Uint8Array" ? response.body.text ?? utf8.decode(response.body.body) : undefined

/**
 * The entity tag of an answer: the hash of its JSON body, which is the resource as the API encodes it (HttpApi
 * writes `JSON.stringify` of the encoded value), so it equals core's `entityTag` of the same resource without
 * encoding it a second time.
 */
export const answerTag = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const text = answerText(response)
  return text === undefined ? undefined : entityTagOfText(text)
}

/** Records the answer's tag source in the request's facts: the request's one pre-response step sets the header. */
const recordTag = (etag: true | string): Effect.Effect<void> =>
  updateFacts((facts) => {
    facts.etag = etag
  })

/** Once `self` succeeds, its answer carries an `ETag`: the hash of the answer's body (the resource itself). */
export const withETag = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tap(self, () => recordTag(true))

/**
 * Once `self` succeeds, its answer carries the `ETag` of the resource `resourceOf` derives from the value, for an
 * answer that is not the resource itself (a webhook with its secret: the tag is that of the webhook without it).
 */
export const withETagOf = <A, B, I>(schema: Schema.Codec<B, I>, resourceOf: (value: A) => B) => {
  const tagOf = entityTag(schema)
  return <E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.tap(self, (value) => recordTag(tagOf(resourceOf(value))))
}
