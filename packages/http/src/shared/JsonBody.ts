/**
 * The JSON body rules: a JSON body or nothing, at most `HttpConfig.maxBodyBytes`. HttpApi reads bodies
 * through the request in its context, so the router sees the request through `JsonBodyRequest`, whose body can
 * only be read as JSON, once. The body is read by the platform's own reader under `MaxBodySize` (413 past the
 * limit, then the server stops reading the connection once the answer is sent). HttpApi reads bodies with
 * `orDie`, so a body-rule failure is a defect here: the `HttpFailure` itself, which the boundary (RequestMiddleware.ts)
 * answers. Not the platform's request error, which holds the request: Effect hashes the failures it combines, and
 * a Node request cannot be hashed while its body is unread.
 */
import { ByteSize, Context, Effect, Inspectable, Layer, type Schema, Stream } from "effect"
import type { HttpServerError } from "effect/http"
import { Headers, HttpIncomingMessage, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpFailure } from "./ErrorResponses.js"
import { HttpConfig } from "./HttpConfig.js"

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** How deep a body may nest (then 400): far past any request's shape, short of what formatting an error can recurse. */
export const MAX_JSON_DEPTH = 64

/** Whether `value` nests deeper than `max` arrays and objects; iterative, so no input can overflow the stack. */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [next, depth] = stack.pop()!
    if (typeof next !== "object" || next === null) continue
    if (depth > max) return true
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

/** A body that passed the rules: its text as HttpApi parses it, and the value it holds. */
interface JsonBodyText {
  readonly text: string
  readonly value: Schema.Json
}

const EMPTY: JsonBodyText = { text: "{}", value: {} }

const parseJson = (bytes: ArrayBuffer): JsonBodyText => {
  const text = utf8.decode(bytes)
  const value: Schema.Json = JSON.parse(text)
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new Error("nested too deeply")
  return { text, value }
}

/** What a failed read of the body means for the client: past the limit (413), or no body to parse (400). */
const readFailure = (error: HttpServerError.HttpServerError, limit: number): HttpFailure =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
    ? HttpFailure.payloadTooLarge(limit)
    : HttpFailure.malformedJson

/**
 * At most `limit` bytes (a declared `Content-Length` over it fails before reading); an empty body reads as
 * `{}`, so a body-less create reports its missing fields (422) and a body-less update changes nothing; a non-empty
 * one must say `application/json` (415) and parse (400).
 */
const readJson = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<JsonBodyText, HttpFailure> =>
  Effect.suspend(() => {
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) return Effect.fail(HttpFailure.payloadTooLarge(limit))
    return request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
      Effect.mapError((error) => readFailure(error, limit)),
      Effect.flatMap((bytes) => {
        if (bytes.byteLength === 0) return Effect.succeed(EMPTY)
        if (!isJsonMediaType(request.headers["content-type"])) return Effect.fail(HttpFailure.unsupportedMediaType)
        return Effect.try({ try: () => parseJson(bytes), catch: () => HttpFailure.malformedJson })
      })
    )
  })

/**
 * The same request, except that its body can only be read as JSON, through `readJson`. HttpApi picks a body decoder
 * by `Content-Type` before it reads, so this request says `application/json`: the type was checked by `readJson`,
 * and an empty body of any type is `{}`.
 */
class JsonBodyRequest implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId] = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  readonly headers: Headers.Headers
  constructor(
    readonly inner: HttpServerRequest.HttpServerRequest,
    private readonly body: Effect.Effect<JsonBodyText, HttpFailure>
  ) {
    this.headers = Headers.set(inner.headers, "content-type", "application/json")
  }
  get json() {
    return Effect.map(Effect.orDie(this.body), (body) => body.value)
  }
  get text() {
    return Effect.map(Effect.orDie(this.body), (body) => body.text)
  }
  get urlParamsBody() {
    return Effect.die(HttpFailure.unsupportedMediaType)
  }
  get arrayBuffer() {
    return Effect.die(HttpFailure.unsupportedMediaType)
  }
  get stream() {
    return Stream.die(HttpFailure.unsupportedMediaType)
  }
  get multipart() {
    return Effect.die(HttpFailure.unsupportedMediaType)
  }
  get multipartStream() {
    return Stream.die(HttpFailure.unsupportedMediaType)
  }
  get source() {
    return this.inner.source
  }
  get url() {
    return this.inner.url
  }
  get originalUrl() {
    return this.inner.originalUrl
  }
  get method() {
    return this.inner.method
  }
  get cookies() {
    return this.inner.cookies
  }
  get remoteAddress() {
    return this.inner.remoteAddress
  }
  get peerAddress() {
    return this.inner.peerAddress
  }
  get protocol() {
    return this.inner.protocol
  }
  get upgrade() {
    return this.inner.upgrade
  }
  get upgradeWith() {
    return this.inner.upgradeWith
  }
  readonly modify = (
    options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]
  ): HttpServerRequest.HttpServerRequest => new JsonBodyRequest(this.inner.modify(options), this.body)
  toJSON() {
    return this.inner.toJSON()
  }
  toString() {
    return this.inner.toString()
  }
  [Inspectable.NodeInspectSymbol]() {
    return this.inner.toJSON()
  }
}

/** Methods whose endpoints take a body; no GET, HEAD or DELETE endpoint reads one (Api.ts). */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

export class JsonBody extends Context.Service<JsonBody>()("@support-engine/http/JsonBody", {
  make: Effect.map(HttpConfig, ({ maxBodyBytes }) => {
    /**
     * `app` seeing `request` through `JsonBodyRequest`, read at most once. Requests whose method no endpoint reads
     * a body for get `app` itself, decided before any effect runs: the wrapper costs a cached effect and a context
     * change, and the GETs that are most requests would pay for nothing.
     */
    const around = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
      BODY_METHODS.has(request.method)
        ? Effect.flatMap(
          Effect.cached(readJson(request, maxBodyBytes)),
          (body) => Effect.provideService(app, HttpServerRequest.HttpServerRequest, new JsonBodyRequest(request, body))
        )
        : app
    return { around } as const
  })
}) {
  static readonly layer: Layer.Layer<JsonBody> = Layer.effect(this, this.make)
}
