/**
 * What every request goes through around the router (D7, D12, D13): a request id (`X-Request-Id`, also on
 * every log line of the request), the JSON body rules, HttpApi's decode failures as D13 validation errors,
 * unknown routes (404) and methods (405), and defects as a bare 500 that is logged with the request id.
 * Core errors pass through untouched: HttpApi renders them with their schemas from ErrorResponses.ts.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiError,
  HttpApp,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { IdGenerator, ValidationError } from "@support-engine/core"
import { Cause, Config, type ConfigError, Context, Effect, Inspectable, Layer, Option, Predicate, Stream } from "effect"
import { Readable } from "node:stream"
import { Api } from "../Api.js"
import { fieldErrorsFromIssues, HttpFailure, renderHttpFailure } from "./ErrorResponses.js"

/** 1 MiB (D7). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576

/** Settings of the HTTP face; the default applies when none is provided. */
export class HttpConfig extends Context.Reference<HttpConfig>()("@support-engine/http/HttpConfig", {
  defaultValue: () => ({ maxBodyBytes: DEFAULT_MAX_BODY_BYTES })
}) {
  /** From the environment: `SUPPORT_MAX_BODY_BYTES` (D41). */
  static readonly fromEnv: Layer.Layer<HttpConfig, ConfigError.ConfigError> = Layer.effect(
    HttpConfig,
    Config.integer("SUPPORT_MAX_BODY_BYTES").pipe(
      Config.withDefault(DEFAULT_MAX_BODY_BYTES),
      Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
      Effect.map((maxBodyBytes) => ({ maxBodyBytes }))
    )
  )
}

/** The paths the system routes answer beside the API (Docs.ts). */
export const SYSTEM_PATHS = ["/health", "/openapi.json", "/docs"] as const

interface KnownRoute {
  readonly method: string
  readonly pattern: RegExp
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const compile = (path: string): RegExp =>
  new RegExp(
    `^${path.split("/").map((segment) => segment.startsWith(":") ? "[^/]+" : escapeRegExp(segment)).join("/")}/?$`
  )

const knownRoutes = (): ReadonlyArray<KnownRoute> => {
  const routes: Array<KnownRoute> = SYSTEM_PATHS.map((path) => ({ method: "GET", pattern: compile(path) }))
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: compile(endpoint.path) })
  })
  return routes
}

/** 405 with `Allow` when another method has this path (the router, like this, ignores a trailing slash), else 404. */
const routeMiss = (routes: ReadonlyArray<KnownRoute>, request: HttpServerRequest.HttpServerRequest) => {
  const pathname = new URL(request.url, "http://localhost").pathname
  const allowed = [...new Set(routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method))]
  return allowed.length === 0
    ? renderHttpFailure(HttpFailure.routeNotFound)
    : HttpServerResponse.setHeader(renderHttpFailure(HttpFailure.methodNotAllowed), "allow", allowed.join(", "))
}

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * The body, at most `limit` bytes (413 past it, whatever `Content-Length` claimed). A body that overflows is
 * still drained up to as much again, so the client reads its 413 instead of a reset connection; past that the
 * stream is abandoned.
 */
const readAtMost = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.suspend(() => {
    const declared = Number(request.headers["content-length"])
    if (Number.isFinite(declared) && declared > limit) return Effect.fail(HttpFailure.payloadTooLarge(limit))
    return request.source instanceof Readable ? readNode(request.source, limit) : readStream(request, limit)
  })

/** Where the next chunk goes: kept, counted only, or the end of reading (a 413). */
const accept = (size: number, limit: number): "keep" | "drain" | "abandon" =>
  size > 2 * limit ? "abandon" : size > limit ? "drain" : "keep"

const bodyOf = (chunks: ReadonlyArray<Uint8Array>, size: number, limit: number) =>
  size > limit ? Effect.fail(HttpFailure.payloadTooLarge(limit)) : Effect.succeed(Buffer.concat(chunks))

/**
 * Node's request, read by its own events. The platform's `request.stream` runs a `Stream` (a channel, a queue and
 * fibers) for what is one small chunk on almost every request: measured, a tenth of a create's CPU
 * (docs/performance.md). Same rules as `readStream`; an abandoned request is destroyed, as the platform's stream
 * does when it is abandoned.
 */
const readNode = (source: Readable, limit: number): Effect.Effect<Buffer, HttpFailure> =>
  Effect.async<Buffer, HttpFailure>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (result: Effect.Effect<Buffer, HttpFailure>) => {
      stop()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      const next = accept(size, limit)
      if (next === "keep") chunks.push(chunk)
      if (next === "abandon") {
        finish(Effect.fail(HttpFailure.payloadTooLarge(limit)))
        source.destroy()
      }
    }
    const onEnd = () => finish(bodyOf(chunks, size, limit))
    // The client went away or sent a broken stream: there is no body to parse.
    const onBroken = () => finish(Effect.fail(HttpFailure.malformedJson))
    const stop = () => {
      source.off("data", onData).off("end", onEnd).off("error", onBroken).off("close", onBroken)
    }
    if (source.destroyed) return onBroken()
    source.on("data", onData).on("end", onEnd).on("error", onBroken).on("close", onBroken)
    return Effect.sync(stop)
  })

/** Any other request (a web `Request` under `makeWebHandler`), through the platform's stream. */
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

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * D7: a JSON body or nothing. An empty body reads as `{}`, so a body-less create reports its missing fields
 * (422) and a body-less update changes nothing; a non-empty one must say `application/json` (415) and parse (400).
 */
const readJson = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<unknown, HttpFailure> =>
  Effect.flatMap(readAtMost(request, limit), (bytes) => {
    if (bytes.length === 0) return Effect.succeed({})
    if (!isJsonMediaType(request.headers["content-type"])) return Effect.fail(HttpFailure.unsupportedMediaType)
    return Effect.try({ try: (): unknown => JSON.parse(utf8.decode(bytes)), catch: () => HttpFailure.malformedJson })
  })

/**
 * The request as the router sees it: the same request, except that its body can only be read as JSON, through
 * `readJson`. HttpApi reads bodies with `orDie`, so a D7 failure arrives as a defect carrying an `HttpFailure`.
 */
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

/**
 * `app` seeing the request through `JsonBodyRequest`, read at most once. Requests whose method no endpoint reads a
 * body for skip the wrapper: it costs a cached effect and a context change on every read otherwise.
 */
const withJsonBody = <A, E, R>(
  app: Effect.Effect<A, E, R>,
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<A, E, R> =>
  BODY_METHODS.has(request.method)
    ? Effect.flatMap(
      Effect.cached(readJson(request, limit)),
      (body) => Effect.provideService(app, HttpServerRequest.HttpServerRequest, new JsonBodyRequest(request, body))
    )
    : app

/** The `HttpFailure` a D7 defect carries, directly or as the cause of the platform's request error. */
const httpFailureOf = (defect: unknown): HttpFailure | undefined => {
  if (defect instanceof HttpFailure) return defect
  if (Predicate.hasProperty(defect, "cause") && defect.cause instanceof HttpFailure) return defect.cause
  return undefined
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** Every request, around the router: see the module comment. */
export const RequestMiddlewareLive: Layer.Layer<never, never, IdGenerator> = HttpApiBuilder.middleware(
  Api,
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    const { maxBodyBytes } = yield* HttpConfig
    const routes = knownRoutes()
    const middleware: HttpApiBuilder.MiddlewareFn<ValidationError> = (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : yield* ids.uuid
        yield* HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
        )
        return yield* withJsonBody(app, request, maxBodyBytes).pipe(
          // The boundary of the whole app: every outcome becomes a response or goes on to HttpApi's encoder.
          Effect.catchAllCause((cause) => {
            const widened: Cause.Cause<unknown> = cause
            const failure = Cause.failureOption(widened)
            if (Option.isSome(failure)) {
              const error = failure.value
              if (error instanceof HttpApiError.HttpApiDecodeError) {
                return Effect.fail(new ValidationError({ errors: fieldErrorsFromIssues(error.issues) }))
              }
              if (error instanceof HttpServerError.RouteNotFound) return Effect.succeed(routeMiss(routes, request))
              if (error instanceof HttpFailure) return Effect.succeed(renderHttpFailure(error))
              return Effect.failCause(cause)
            }
            if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
            const d7 = Option.firstSomeOf(
              Array.from(Cause.defects(cause), (defect) => Option.fromNullable(httpFailureOf(defect)))
            )
            if (Option.isSome(d7)) return Effect.succeed(renderHttpFailure(d7.value))
            return Effect.as(
              Effect.logError("Unhandled defect", cause).pipe(
                Effect.annotateLogs({ method: request.method, url: request.url })
              ),
              renderHttpFailure(HttpFailure.internal)
            )
          }),
          Effect.annotateLogs("request_id", requestId)
        )
      })
    return middleware
  })
)
