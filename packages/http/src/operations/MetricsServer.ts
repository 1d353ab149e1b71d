/**
 * The Prometheus endpoint: with `SUPPORT_METRICS_PORT` set, `GET /metrics` on a second listener of `SUPPORT_HOST`,
 * in the Prometheus text format (0.0.4) rendered by `effect/observability`'s PrometheusMetrics from the process's
 * Effect metric registry. It is a listener of its own so that the API's port can face the internet while metrics
 * stay on a private interface or port; it runs untraced and outside the API's request middleware (no log line, no
 * request metric per scrape). The backlog gauges are read from the database at each scrape.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { DeliveryBacklog, registerEventMetrics, registerReplyOutcomes } from "@support-engine/core"
import { refreshBacklog, registerAttemptResults } from "@support-engine/webhooks"
import { Config, Context, Effect, Layer, Option, References } from "effect"
import { HttpRouter, HttpServer, type HttpServerError, HttpServerResponse } from "effect/http"
import type { NetAddress } from "effect/net"
import { PrometheusMetrics } from "effect/observability"
import { createServer } from "node:http"
import { validated } from "../shared/HttpConfig.js"

/** The content type of the Prometheus text format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** `SUPPORT_METRICS_PORT`: unset, no metrics listener; 0 picks a free port. */
export const metricsPortConfig: Config.Config<Option.Option<number>> = Config.option(
  validated(
    Config.Int("SUPPORT_METRICS_PORT"),
    "SUPPORT_METRICS_PORT",
    "must be a port number (0 to 65535)",
    (n) => n >= 0 && n <= 65535
  )
)

/** `GET /metrics`: the backlog gauges refreshed, then every metric of the registry. */
export const metricsRoute: Layer.Layer<never, never, HttpRouter.HttpRouter | DeliveryBacklog> = HttpRouter.use((
  router
) =>
  Effect.gen(function*() {
    const backlog = yield* DeliveryBacklog
    // Every family a dashboard queries exists from the first scrape, at 0 until something happens.
    yield* Effect.all([registerAttemptResults, registerReplyOutcomes, registerEventMetrics], { discard: true })
    yield* router.add(
      "GET",
      "/metrics",
      Effect.gen(function*() {
        yield* refreshBacklog.pipe(Effect.provideService(DeliveryBacklog, backlog))
        return HttpServerResponse.text(yield* PrometheusMetrics.format(), { contentType: PROMETHEUS_CONTENT_TYPE })
      })
    )
  })
)

/** Where the metrics listener listens; none when `SUPPORT_METRICS_PORT` is unset. */
export class MetricsListener extends Context.Service<MetricsListener, {
  readonly address: Option.Option<NetAddress.SocketAddress>
}>()("@support-engine/http/MetricsListener") {}

const off = Layer.succeed(MetricsListener, MetricsListener.of({ address: Option.none() }))

/** The metrics listener as the environment configures it (`SUPPORT_HOST`, `SUPPORT_METRICS_PORT`). */
export const MetricsServerFromEnv: Layer.Layer<
  MetricsListener,
  Config.ConfigError | HttpServerError.ServeError,
  DeliveryBacklog
> = Layer.unwrap(Effect.gen(function*() {
  const port = yield* metricsPortConfig
  if (Option.isNone(port)) return off
  const host = yield* Config.String("SUPPORT_HOST").pipe(Config.withDefault("127.0.0.1"))
  const listener = Layer.effect(
    MetricsListener,
    Effect.map(HttpServer.HttpServer, (server) => MetricsListener.of({ address: Option.some(server.address) }))
  )
  return listener.pipe(
    Layer.provideMerge(HttpRouter.serve(metricsRoute, { disableLogger: true, disableListenLog: true })),
    Layer.provide(NodeHttpServer.layer(createServer, { port: port.value, host })),
    Layer.provide(Layer.succeed(References.TracerEnabled, false))
  )
}))
