/**
 * OpenTelemetry export, from the standard variables: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, traces and metrics go
 * to `<endpoint>/v1/traces` and `<endpoint>/v1/metrics` over OTLP/HTTP (`OTEL_EXPORTER_OTLP_PROTOCOL`
 * `http/protobuf`, the default, or `http/json`; `OTEL_EXPORTER_OTLP_HEADERS` as `k=v,k2=v2`, URI-encoded values;
 * `OTEL_SERVICE_NAME`, default `support-engine`), through `effect/observability`'s exporters. Every request then
 * has a server span (Effect's HTTP server makes it, continuing an incoming W3C `traceparent`), with the service and
 * SQL spans under it; each webhook delivery attempt has its own span.
 *
 * Without the endpoint nothing is exported and tracing is off: no span is made on the request path.
 */
import { Config, Effect, Layer, Option, References, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"

/** The service name spans and metrics carry when `OTEL_SERVICE_NAME` is unset. */
export const DEFAULT_SERVICE_NAME = "support-engine"

/** The OTLP settings of the environment; none when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset or empty. */
export const otlpConfig = Config.all({
  endpoint: Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
  protocol: Config.Literals(["http/protobuf", "http/json"], "OTEL_EXPORTER_OTLP_PROTOCOL").pipe(
    Config.withDefault("http/protobuf" as const)
  ),
  headers: Config.Record(Schema.String, Schema.StringFromUriComponent, "OTEL_EXPORTER_OTLP_HEADERS").pipe(
    Config.withDefault({})
  ),
  serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault(DEFAULT_SERVICE_NAME))
})

/** Whether the environment turns OTLP export on (`OTEL_EXPORTER_OTLP_ENDPOINT` set). */
export const otlpEnabled: Config.Config<boolean> = Config.map(
  Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT")),
  Option.isSome
)

/** `<endpoint>/v1/<signal>`, keeping a path the endpoint already has. */
const signalUrl = (endpoint: URL, signal: "traces" | "metrics"): string => {
  const url = new URL(endpoint.href)
  url.pathname = `${url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`}v1/${signal}`
  return url.href
}

/**
 * Tracing and export as the environment says: with an endpoint, the OTLP tracer and metrics exporter (flushed when
 * the layer's scope closes) and tracing on; without, tracing off.
 */
export const TelemetryFromEnv: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(Effect.gen(function*() {
  const config = yield* otlpConfig
  if (Option.isNone(config.endpoint)) return Layer.succeed(References.TracerEnabled, false)
  const options = { resource: { serviceName: config.serviceName }, headers: config.headers }
  const exporters = Layer.mergeAll(
    OtlpTracer.layer({ ...options, url: signalUrl(config.endpoint.value, "traces") }),
    OtlpMetrics.layer({ ...options, url: signalUrl(config.endpoint.value, "metrics") })
  ).pipe(
    Layer.provide(config.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer)
  )
  return Layer.merge(exporters, Layer.succeed(References.TracerEnabled, true))
}))
