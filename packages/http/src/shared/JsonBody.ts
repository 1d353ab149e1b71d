/**
 * The JSON body rules (D7): a JSON body or nothing, at most `HttpConfig.maxBodyBytes`. HttpApi reads bodies
 * through the request in its context, so the router sees the request through `JsonBodyRequest`, whose body can
 * only be read as JSON, once. HttpApi reads bodies with `orDie`: a D7 failure arrives at the boundary
 * (RequestMiddleware.ts) as a defect carrying an `HttpFailure`.
 */
import { type HttpApp, HttpIncomingMessage, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Inspectable, Stream } from "effect"
import { Readable } from "node:stream"
import { accept, bodyOf } from "./BodyLimit.js"
import { HttpFailure } from "./ErrorResponses.js"
import { HttpConfig } from "./HttpConfig.js"
import { NodeBodySeam, readNode } from "./NodeBodyReader.js"

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/** The body through the platform's stream: any request that is not Node's (a web `Request` under `makeWebHandler`). */
const readStream = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    return request.stream.pipe(
      Stream.runForEach((chunk) => {
        size += chunk.length
        const next = accept(size, limit)
        if (next === "abandon") return Effect.fail(HttpFailure.payloadTooLarge(limit))
        if (next === "keep") chunks.push(chunk)
        return Effect.void
      }),
      // The client went away or sent a broken stream: there is no body to parse.
      Effect.catchTag("RequestError", () => Effect.fail(HttpFailure.malformedJson)),
      Effect.flatMap(() => bodyOf(chunks, size, limit))
    )
  })

/** The body, at most `limit` bytes (BodyLimit.ts); a declared `Content-Length` over it fails before reading. */
const readAtMost = (request: HttpServerRequest.HttpServerRequest, limit: number, nodeEvents: boolean) =>
  Effect.suspend(() => {
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) return Effect.fail(HttpFailure.payloadTooLarge(limit))
    return nodeEvents && request.source instanceof Readable
      ? readNode(request.source, limit)
      : readStream(request, limit)
  })

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** How deep a body may nest (D48): far past any request's shape, short of what formatting an error can recurse. */
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

const parseJson = (text: string): unknown => {
  const value: unknown = JSON.parse(text)
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new Error("nested too deeply")
  return value
}

/**
 * D7: an empty body reads as `{}`, so a body-less create reports its missing fields (422) and a body-less update
 * changes nothing; a non-empty one must say `application/json` (415) and parse (400).
 */
const readJson = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number,
  nodeEvents: boolean
): Effect.Effect<unknown, HttpFailure> =>
  Effect.flatMap(readAtMost(request, limit, nodeEvents), (bytes) => {
    if (bytes.length === 0) return Effect.succeed({})
    if (!isJsonMediaType(request.headers["content-type"])) return Effect.fail(HttpFailure.unsupportedMediaType)
    return Effect.try({ try: () => parseJson(utf8.decode(bytes)), catch: () => HttpFailure.malformedJson })
  })

/** The same request, except that its body can only be read as JSON, through `readJson`. */
class JsonBodyRequest implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  constructor(
    readonly inner: HttpServerRequest.HttpServerRequest,
    private readonly body: Effect.Effect<unknown, HttpFailure>
  ) {}
  private fail(failure: HttpFailure) {
    return new HttpServerError.RequestError({
      request: this.inner,
      reason: "Decode",
      cause: failure,
      description: failure.message
    })
  }
  get json() {
    return Effect.mapError(this.body, (failure) => this.fail(failure))
  }
  get text() {
    return Effect.fail(this.fail(HttpFailure.unsupportedMediaType))
  }
  get urlParamsBody() {
    return Effect.fail(this.fail(HttpFailure.unsupportedMediaType))
  }
  get arrayBuffer() {
    return Effect.fail(this.fail(HttpFailure.unsupportedMediaType))
  }
  get stream() {
    return Stream.fail(this.fail(HttpFailure.unsupportedMediaType))
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
  get headers() {
    return this.inner.headers
  }
  get remoteAddress() {
    return this.inner.remoteAddress
  }
  get upgrade() {
    return this.inner.upgrade
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]): HttpServerRequest.HttpServerRequest {
    return new JsonBodyRequest(this.inner.modify(options), this.body)
  }
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

export class JsonBody extends Effect.Service<JsonBody>()("@support-engine/http/JsonBody", {
  effect: Effect.gen(function*() {
    const { maxBodyBytes } = yield* HttpConfig
    const nodeEvents = yield* FiberRef.get(NodeBodySeam)
    /**
     * `app` seeing `request` through `JsonBodyRequest`, read at most once. Requests whose method no endpoint reads
     * a body for get `app` itself, decided before any effect runs: the wrapper costs a cached effect and a context
     * change, and the GETs that are most requests would pay for nothing.
     */
    const around = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      app: HttpApp.Default<E, R>
    ): HttpApp.Default<E, R> =>
      BODY_METHODS.has(request.method)
        ? Effect.flatMap(
          Effect.cached(readJson(request, maxBodyBytes, nodeEvents)),
          (body) => Effect.provideService(app, HttpServerRequest.HttpServerRequest, new JsonBodyRequest(request, body))
        )
        : app
    return { around } as const
  })
}) {}
