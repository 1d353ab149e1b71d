/**
 * The standalone Node server: `ServerLive` over an engine in context, and `StandaloneLive`, the whole server from
 * the environment as `support-engine serve` runs it, on the engine of `@support-engine/engine`.
 */
// The module itself, not the package index: through the index the bundle keeps all of NodeHttpServer, whose test
// layer pulls in undici.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { DatabaseUrlConfig, supportEngineLayer, type SupportEngineServices } from "@support-engine/engine"
import { type Config, Effect, Layer, References } from "effect"
import { HttpRouter, type HttpServer, type HttpServerError } from "effect/http"
import { type ApiServices, HttpApiLive } from "./HttpApiLive.js"
import { listenConfig } from "./ListenConfig.js"
import { type MetricsListener, MetricsServerFromEnv } from "./operations/MetricsServer.js"
import { otlpEnabled, TelemetryFromEnv } from "./operations/Telemetry.js"
import { HttpConfig } from "./shared/HttpConfig.js"
import { LoggingFromEnv } from "./shared/Logging.js"
import { PublicUrl } from "./shared/PublicUrl.js"
import { RateLimitConfig } from "./shared/RateLimits.js"
import { limitedServer, serverLimitsConfig } from "./shared/ServerLimits.js"

/**
 * Tracing off (core's Tracing.ts) for everything built after it: the standalone server has no tracer to give
 * spans to, and making them (with the statement scopes that go with them) is a large share of a request's cost
 * (docs/performance.md). Hosts that trace serve `HttpLive` or a handler (Handlers.ts), which keep Effect's default.
 */
export const Untraced: Layer.Layer<never> = Layer.succeed(References.TracerEnabled, false)

/**
 * The standalone Node server over the engine in context, listening where `listenConfig` says with the body limit
 * of `SUPPORT_MAX_BODY_BYTES` and the connection limits of ServerLimits.ts. Closing its scope stops accepting
 * connections and lets in-flight requests finish (at most `SUPPORT_SHUTDOWN_TIMEOUT_MS`). It does not deliver
 * webhooks: the engine's background does. Requests run
 * untraced (`Untraced`) unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set: then they are traced with the tracer in
 * context (`TelemetryFromEnv`, Telemetry.ts, provides it).
 */
export const ServerLive: Layer.Layer<
  HttpServer.HttpServer,
  Config.ConfigError | HttpServerError.ServeError,
  ApiServices
> = Layer.unwrap(
  Effect.map(
    Effect.all([serverLimitsConfig, otlpEnabled]),
    ([limits, traced]) =>
      HttpRouter.serve(HttpApiLive, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(HttpConfig.fromEnv),
        Layer.provide(RateLimitConfig.fromEnv),
        Layer.provide(PublicUrl.fromEnv),
        Layer.provideMerge(NodeHttpServer.layerConfig(() => limitedServer(limits), listenConfig)),
        Layer.provide(traced ? Layer.empty : Untraced)
      )
  )
)

/**
 * The engine's layer on `SUPPORT_DATABASE_URL`, migrated when built, with all its background work: the webhook
 * dispatcher, the training and reply workers, the retention pruner and the previous-secret sweep.
 */
export const EngineFromEnv: Layer.Layer<SupportEngineServices, Config.ConfigError> = Layer.unwrap(
  Effect.map(DatabaseUrlConfig, (databaseUrl) => supportEngineLayer({ databaseUrl }))
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
