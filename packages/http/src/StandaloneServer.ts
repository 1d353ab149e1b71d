/**
 * Ways to run the API (D3c, D41, D42): as a layer on a host's `HttpServer`, as a web or node:http request
 * handler inside a host's own server, or as the standalone Node server the CLI starts.
 */
// The module itself, not the package index: through the index the bundle keeps all of NodeHttpServer, whose test
// layer pulls in undici (docs/performance.md, start-up).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type {
  AgentAsk,
  Agents,
  Companies,
  Conversations,
  Copilot,
  CustomerExports,
  Customers,
  EngineService,
  Events,
  Idempotency,
  IdGenerator,
  KnowledgeBase,
  Messages,
  Readiness,
  RowLocks,
  Tokens,
  Training,
  Transactor,
  WebhookOps,
  WebhookRepo,
  Webhooks
} from "@support-engine/core"
import { DatabaseUrlConfig, engineLayer, type StoragePorts } from "@support-engine/storage"
import { DispatcherBackground, WebhooksLive } from "@support-engine/webhooks"
import { Config, Duration, Effect, Exit, type FileSystem, Layer, type Path, References, Scope } from "effect"
import {
  type Etag,
  type HttpPlatform,
  HttpRouter,
  HttpServer,
  type HttpServerError,
  type HttpServerRequest,
  type HttpServerResponse
} from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { IncomingMessage, ServerResponse } from "node:http"
import { AgentsHttpLive } from "./agents/AgentsHttp.js"
import { Api } from "./Api.js"
import { CompaniesHttpLive } from "./companies/CompaniesHttp.js"
import { ConversationsHttpLive } from "./conversations/ConversationsHttp.js"
import { MessagesHttpLive } from "./conversations/MessagesHttp.js"
import { CustomersHttpLive } from "./customers/CustomersHttp.js"
import { DocsLive } from "./Docs.js"
import { EventsHttpLive } from "./events/EventsHttp.js"
import { KnowledgeBaseHttpLive } from "./knowledge-base/KnowledgeBaseHttp.js"
import { McpHttpLive } from "./mcp/McpServers.js"
import { type MetricsListener, MetricsServerFromEnv } from "./operations/MetricsServer.js"
import { otlpEnabled, TelemetryFromEnv } from "./operations/Telemetry.js"
import { ApiErrorsLive } from "./shared/ApiErrors.js"
import { AuthenticationLive } from "./shared/Authentication.js"
import { HttpConfig, validated } from "./shared/HttpConfig.js"
import { LoggingFromEnv } from "./shared/Logging.js"
import { PublicUrl } from "./shared/PublicUrl.js"
import { RateLimitConfig } from "./shared/RateLimits.js"
import { RequestMiddlewareLive } from "./shared/RequestMiddleware.js"
import { limitedServer, serverLimitsConfig } from "./shared/ServerLimits.js"
import { TokenHttpLive } from "./tokens/TokenHttp.js"
import { TrainingHttpLive } from "./training/TrainingHttp.js"
import { WebhooksHttpLive } from "./webhooks/WebhooksHttp.js"

/** The services the handlers call: core's (from `EngineLive`) and the webhook subscriptions of `webhooks`. */
export type ApiServices =
  | Tokens
  | IdGenerator
  | Idempotency
  | Events
  | Agents
  | AgentAsk
  | Copilot
  | Conversations
  | Messages
  | Training
  | KnowledgeBase
  | Customers
  | CustomerExports
  | Companies
  | Webhooks
  | Readiness

/**
 * What a host's engine layer provides for the API: every core service and the storage ports the webhook
 * subscriptions service reads. Storage's `engineLayer({ databaseUrl })` provides all of it.
 */
export type EngineHost = Exclude<ApiServices, Webhooks> | WebhookRepo | WebhookOps | RowLocks | Transactor

/** The webhook subscriptions service with `SUPPORT_WEBHOOK_*` from the environment (D41). */
export const WebhooksFromEnv: Layer.Layer<
  Webhooks,
  Config.ConfigError,
  WebhookRepo | WebhookOps | RowLocks | Transactor | IdGenerator
> = WebhooksLive

const GroupsLive = Layer.mergeAll(
  EventsHttpLive,
  AgentsHttpLive,
  ConversationsHttpLive,
  MessagesHttpLive,
  TrainingHttpLive,
  KnowledgeBaseHttpLive,
  CustomersHttpLive,
  CompaniesHttpLive,
  WebhooksHttpLive,
  TokenHttpLive
).pipe(Layer.provide(AuthenticationLive), Layer.provide(ApiErrorsLive))

/** What serving the API needs of the platform: its file system, paths, HTTP platform and ETag generator. */
export type PlatformServices = Etag.Generator | FileSystem.FileSystem | HttpPlatform.HttpPlatform | Path.Path

/**
 * The API with its handlers, request middleware, the `/health`, `/openapi.json` and `/docs` routes and the MCP
 * server at `/mcp` (McpServers.ts), added to
 * the `HttpRouter` that `HttpRouter.serve`, `HttpRouter.toWebHandler` or `HttpRouter.toHttpEffect` turn into a
 * server or handler (with `disableLogger: true`: the request log is the API's own, RequestLog.ts).
 */
export const HttpApiLive: Layer.Layer<never, never, HttpRouter.HttpRouter | PlatformServices | ApiServices> = Layer
  .mergeAll(HttpApiBuilder.layer(Api), DocsLive, RequestMiddlewareLive, Layer.orDie(McpHttpLive))
  .pipe(Layer.provide(GroupsLive))

/**
 * `SUPPORT_PUBLIC_URL`, else the host server's own address (D51). A malformed value stops the server at start,
 * with the config error as the cause, instead of putting wrong links in every list.
 */
const PublicUrlOnServer: Layer.Layer<never, never, HttpServer.HttpServer> = PublicUrl.fromEnv.pipe(Layer.orDie)

/** The API served on the host's `HttpServer` (any platform's), lists linked on its public address (D51). */
export const HttpLive: Layer.Layer<never, never, HttpServer.HttpServer | PlatformServices | ApiServices> = HttpRouter
  .serve(HttpApiLive, { disableLogger: true, disableListenLog: true })
  .pipe(Layer.provide(PublicUrlOnServer))

/** How long a stopping server lets requests in flight finish when `SUPPORT_SHUTDOWN_TIMEOUT_MS` is unset. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000

/**
 * `SUPPORT_HOST` (default 127.0.0.1), `SUPPORT_PORT` (default 8080; 0 picks a free port) (D41), and
 * `SUPPORT_SHUTDOWN_TIMEOUT_MS` (default 10,000): once the server stops accepting connections, how long requests in
 * flight may take to finish before they are interrupted.
 */
export const listenConfig = Config.all({
  host: Config.String("SUPPORT_HOST").pipe(Config.withDefault("127.0.0.1")),
  port: validated(
    Config.Int("SUPPORT_PORT").pipe(Config.withDefault(8080)),
    "SUPPORT_PORT",
    "must be a port number (0 to 65535)",
    (n) => n >= 0 && n <= 65535
  ),
  gracefulShutdownTimeout: validated(
    Config.Int("SUPPORT_SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(DEFAULT_SHUTDOWN_TIMEOUT_MS)),
    "SUPPORT_SHUTDOWN_TIMEOUT_MS",
    "must be a non-negative integer (milliseconds)",
    (n) => n >= 0
  ).pipe(Config.map(Duration.millis))
})

/**
 * Tracing off (core's Tracing.ts) for everything built after it: the standalone server has no tracer to give
 * spans to, and making them (with the statement scopes that go with them) cost about two fifths of a GET
 * (docs/performance.md). Hosts that trace serve `HttpLive` or a handler below, which keep Effect's default.
 */
export const Untraced: Layer.Layer<never> = Layer.succeed(References.TracerEnabled, false)

/**
 * The standalone Node server over the given engine, listening per D41 with the body limit of
 * `SUPPORT_MAX_BODY_BYTES`, the connection limits of ServerLimits.ts and the webhook settings of
 * `SUPPORT_WEBHOOK_*`. Closing its scope stops accepting connections and lets in-flight requests finish (at most
 * `SUPPORT_SHUTDOWN_TIMEOUT_MS`). It does not deliver webhooks: the engine's background does. Requests run
 * untraced (`Untraced`) unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set: then they are traced with the tracer in
 * context (`TelemetryFromEnv`, Telemetry.ts, provides it).
 */
export const ServerLive: Layer.Layer<
  HttpServer.HttpServer,
  Config.ConfigError | HttpServerError.ServeError,
  EngineHost
> = Layer.unwrap(
  Effect.map(
    Effect.all([serverLimitsConfig, otlpEnabled]),
    ([limits, traced]) =>
      HttpRouter.serve(HttpApiLive, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(WebhooksFromEnv),
        Layer.provide(HttpConfig.fromEnv),
        Layer.provide(RateLimitConfig.fromEnv),
        Layer.provide(PublicUrl.fromEnv),
        Layer.provideMerge(NodeHttpServer.layerConfig(() => limitedServer(limits), listenConfig)),
        Layer.provide(traced ? Layer.empty : Untraced)
      )
  )
)

/**
 * The engine on `SUPPORT_DATABASE_URL` (D41), migrated when built, with its background work: the training
 * worker, the AI reply worker (D53) and the webhook dispatcher.
 */
export const EngineFromEnv: Layer.Layer<EngineService | StoragePorts, Config.ConfigError> = Layer.unwrap(
  Effect.map(
    DatabaseUrlConfig,
    (databaseUrl) => engineLayer({ databaseUrl, background: [DispatcherBackground] })
  )
)

/**
 * The whole standalone server from the environment: engine, storage, webhook delivery, HTTP and the metrics
 * listener of `SUPPORT_METRICS_PORT` (MetricsServer.ts), logging as `SUPPORT_LOG_FORMAT` and `SUPPORT_LOG_LEVEL`
 * say (Logging.ts), traced and exported as the `OTEL_*` variables say (Telemetry.ts).
 */
export const StandaloneLive: Layer.Layer<
  HttpServer.HttpServer | MetricsListener,
  Config.ConfigError | HttpServerError.ServeError
> = Layer.merge(ServerLive, MetricsServerFromEnv).pipe(
  Layer.provide(EngineFromEnv),
  Layer.provide(TelemetryFromEnv),
  Layer.provide(LoggingFromEnv())
)

/** A request handler and the function that releases what it holds (database pool, background fibers). */
export interface Handler<H> {
  readonly handler: H
  readonly dispose: () => Promise<void>
}

/**
 * The API as a web `Request => Response` handler over the given core services, for hosts with their own
 * server (Bun, Deno, a serverless function, a Node framework with a fetch adapter).
 */
export const makeWebHandler = <E>(
  engine: Layer.Layer<EngineHost, E>
): Handler<(request: Request) => Promise<Response>> =>
  HttpRouter.toWebHandler(
    HttpApiLive.pipe(
      Layer.provide(WebhooksFromEnv),
      Layer.provide(engine),
      Layer.provide(HttpServer.layerServices)
    ),
    { disableLogger: true }
  )

/**
 * The API as a node:http request listener, inside an Effect program that provides the API's services; the
 * listener's requests run in the program's scope.
 */
export const nodeHandler: Effect.Effect<
  (request: IncomingMessage, response: ServerResponse) => void,
  never,
  Scope.Scope | PlatformServices | ApiServices
> = Effect.gen(function*() {
  const httpEffect: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    unknown,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  > = yield* HttpRouter.toHttpEffect(HttpApiLive)
  return yield* NodeHttpServer.makeHandler(httpEffect, { scope: yield* Scope.Scope })
})

/**
 * The API as a node:http `(req, res)` listener over the given core services, to mount in an existing server:
 * route the requests it should answer (for example every path under `/v1`, plus `/docs`, `/openapi.json`)
 * to `handler`, and call `dispose` when the server closes.
 */
export const makeNodeHandler = <E>(
  engine: Layer.Layer<EngineHost, E>
): Handler<(request: IncomingMessage, response: ServerResponse) => void> => {
  const scope = Scope.makeUnsafe()
  const services = Layer.mergeAll(WebhooksFromEnv, HttpServer.layerServices).pipe(Layer.provideMerge(engine))
  const ready = Effect.runPromise(
    Effect.flatMap(
      Layer.buildWithScope(services, scope),
      (context) => nodeHandler.pipe(Effect.provideContext(context), Scope.provide(scope))
    )
  )
  // Surfaced on each request instead; without this the first failure would be an unhandled rejection.
  ready.catch(() => undefined)
  return {
    handler: (request, response) => {
      ready.then((handle) => handle(request, response), () => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "Internal server error.", code: null, errors: null }))
      })
    },
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
