/**
 * OTLP export (D57): the standalone server with `OTEL_EXPORTER_OTLP_ENDPOINT` on a loopback collector stub that
 * records every POST. Traces arrive as OTLP/JSON: a server span per request (continuing an incoming `traceparent`)
 * with the service and SQL spans under it, and a span per webhook delivery attempt; metrics arrive too.
 */
import { assert, describe, it } from "@effect/vitest"
import { webhookAttemptsTotal } from "@support-engine/webhooks"
import { ConfigProvider, Effect, Layer, Metric, References, Schedule } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { DEFAULT_SERVICE_NAME, TelemetryFromEnv } from "../src/operations/Telemetry.js"
import { baseUrl, close, listen, provision, standalone } from "./Harness.js"

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly boolValue?: boolean
  readonly doubleValue?: number
}
interface OtlpAttribute {
  readonly key: string
  readonly value: OtlpValue
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
}
interface TracesBody {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}
interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

const attributes = (list: ReadonlyArray<OtlpAttribute>): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]))

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER_SPAN = "00f067aa0ba902b7"

describe("OTLP export (D57)", () => {
  it.live("without OTEL_EXPORTER_OTLP_ENDPOINT tracing is off and nothing is exported", () =>
    Effect.gen(function*() {
      const enabled = yield* References.TracerEnabled.pipe(
        Effect.provide(TelemetryFromEnv.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({})))))
      )
      assert.isFalse(enabled)
    }))

  it.live("traces and metrics reach the collector; traceparent makes the request span the caller's child", () =>
    Effect.gen(function*() {
      const token = yield* provision("traced")
      const received: Array<Received> = []
      const collector = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({
            path: request.url ?? "",
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8")
          })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      const collectorPort = yield* listen(collector)
      const receiver = createServer((request, response) => {
        request.resume()
        request.on("end", () => response.writeHead(204).end())
      })
      const receiverPort = yield* listen(receiver)
      const standaloneServer = standalone("traced", {
        SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-secret"
      })
      let delivered = 0
      yield* Effect.gen(function*() {
        const base = yield* baseUrl
        const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
          Effect.promise(async () => {
            const response = await fetch(`${base}${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
              body: JSON.stringify(body)
            })
            await response.text()
            return response.status
          })
        assert.strictEqual(
          yield* call("POST", "/v1/webhooks", {
            url: `http://127.0.0.1:${receiverPort}/hook`,
            events: ["customer.created"]
          }),
          201
        )
        assert.strictEqual(
          yield* call("POST", "/v1/customers", { email: "traced@example.test" }, {
            traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`
          }),
          201
        )
        // Wait for the delivery, so that its attempt's span is made before the server stops.
        yield* Metric.value(Metric.withAttributes(webhookAttemptsTotal, { result: "delivered" })).pipe(
          Effect.filterOrFail((state) => state.count >= 1),
          Effect.retry(Schedule.spaced("50 millis")),
          Effect.timeout("20 seconds")
        )
        delivered = 1
      }).pipe(Effect.provide(standaloneServer))
      assert.strictEqual(delivered, 1)
      // Closing the server flushed the exporters.
      const traces = received.filter((r) => r.path === "/v1/traces")
      assert.isAbove(traces.length, 0)
      assert.strictEqual(traces[0]!.headers["content-type"], "application/json")
      assert.strictEqual(traces[0]!.headers["authorization"], "Bearer collector-secret")
      const bodies = traces.map((r) => JSON.parse(r.body) as TracesBody)
      assert.strictEqual(
        attributes(bodies[0]!.resourceSpans[0]!.resource.attributes)["service.name"],
        DEFAULT_SERVICE_NAME
      )
      const spans = bodies.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))

      const server = spans.find((s) =>
        s.kind === 2 && attributes(s.attributes)["http.route"] === "/v1/customers" && s.traceId === TRACE_ID
      )
      assert.isDefined(server, JSON.stringify(spans.map((s) => s.name)))
      assert.strictEqual(server!.parentSpanId, CALLER_SPAN)
      assert.strictEqual(String(attributes(server!.attributes)["http.response.status_code"]), "201")

      // Everything under the request's span belongs to its trace; service spans and SQL statements among them.
      const inTrace = spans.filter((s) => s.traceId === TRACE_ID && s.spanId !== server!.spanId)
      const byId = new Map(spans.map((s) => [s.spanId, s]))
      const under = (span: OtlpSpan): boolean => {
        for (let p = span.parentSpanId; p !== undefined; p = byId.get(p)?.parentSpanId) {
          if (p === server!.spanId) return true
        }
        return false
      }
      assert.isTrue(inTrace.some((s) => s.name.startsWith("Customers.") && under(s)), inTrace.map((s) => s.name).join())
      assert.isTrue(inTrace.some((s) => "db.query.text" in attributes(s.attributes) && under(s)))

      const attempt = spans.find((s) => s.name === "webhook.attempt")
      assert.isDefined(attempt)
      assert.strictEqual(attributes(attempt!.attributes)["webhook.event"], "customer.created")

      assert.isTrue(received.some((r) => r.path === "/v1/metrics"))
      yield* close(receiver)
      yield* close(collector)
    }))

  it.live("http/protobuf (the default protocol) posts protobuf to <endpoint>/v1/traces with the service name", () =>
    Effect.gen(function*() {
      const received: Array<Received> = []
      const collector = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({
            path: request.url ?? "",
            headers: request.headers,
            body: Buffer.concat(chunks).toString("latin1")
          })
          response.writeHead(200).end()
        })
      })
      const port = yield* listen(collector)
      const environment = ConfigProvider.fromEnvRecord({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/otlp`,
        OTEL_SERVICE_NAME: "support-test"
      })
      yield* Effect.void.pipe(
        Effect.withSpan("probe.span"),
        Effect.provide(TelemetryFromEnv.pipe(Layer.provide(ConfigProvider.layer(environment))))
      )
      const traces = received.filter((r) => r.path === "/otlp/v1/traces")
      assert.strictEqual(traces.length, 1)
      assert.strictEqual(traces[0]!.headers["content-type"], "application/x-protobuf")
      assert.include(traces[0]!.body, "probe.span")
      assert.include(traces[0]!.body, "support-test")
      yield* close(collector)
    }))
})
