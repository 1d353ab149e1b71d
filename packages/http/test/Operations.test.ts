/**
 * Operations (D57): `/ready` beside `/health`, and the Prometheus endpoint of `SUPPORT_METRICS_PORT` scraped over
 * real HTTP from the standalone server and parsed with a Prometheus text-format parser.
 */
import { assert, describe, it } from "@effect/vitest"
import { Readiness } from "@support-engine/core"
import { Context, Effect, Layer, Option, Schedule } from "effect"
import { HttpRouter } from "effect/http"
import { createServer } from "node:http"
import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetric } from "prom2javascript"
import { DocsLive } from "../src/Docs.js"
import { MetricsListener, PROMETHEUS_CONTENT_TYPE } from "../src/operations/MetricsServer.js"
import { baseUrl, close, listen, provision, standalone } from "./Harness.js"

/** The system routes over a stub readiness check, as a web handler. */
const systemRoutes = (ready: boolean) =>
  HttpRouter.toWebHandler(
    DocsLive.pipe(Layer.provide(Layer.succeed(Readiness, Readiness.of({ check: Effect.succeed(ready) })))),
    { disableLogger: true }
  )

const scrape = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    const text = await response.text()
    return {
      contentType: response.headers.get("content-type"),
      metrics: await getMetricsFromIterator(text.split("\n")[Symbol.iterator]())
    }
  })

const samples = (metric: PromMetric | undefined): ReadonlyArray<PromData> => (metric?.data ?? []) as Array<PromData>
const sample = (metric: PromMetric | undefined, labels: Record<string, string>): number | undefined =>
  samples(metric).find((d) => Object.entries(labels).every(([k, v]) => d.labels[k] === v))?.value

describe("operations (D57)", () => {
  it.live("/ready is 200 {status: ready} when the check passes, 503 {status: unavailable} when not", () =>
    Effect.gen(function*() {
      for (const [ready, status, body] of [[true, 200, "ready"], [false, 503, "unavailable"]] as const) {
        const { dispose, handler } = systemRoutes(ready)
        const response = yield* Effect.promise(() => handler(new Request("http://host.test/ready")))
        assert.strictEqual(response.status, status)
        assert.deepStrictEqual(yield* Effect.promise(() => response.json()), { status: body })
        // Liveness does not ask the database, ready or not.
        const health = yield* Effect.promise(() => handler(new Request("http://host.test/health")))
        assert.strictEqual(health.status, 200)
        yield* Effect.promise(dispose)
      }
    }))

  it.live("/health touches no database: it answers while the readiness check never does", () =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpRouter.toWebHandler(
        DocsLive.pipe(Layer.provide(Layer.succeed(Readiness, Readiness.of({ check: Effect.never })))),
        { disableLogger: true }
      )
      const health = yield* Effect.promise(() => handler(new Request("http://host.test/health")))
      assert.strictEqual(health.status, 200)
      yield* Effect.promise(dispose)
    }))

  it.live("the standalone server: /ready 200 on its migrated database; SUPPORT_METRICS_PORT serves the metrics", () =>
    Effect.gen(function*() {
      const token = yield* provision("metrics")
      const receiver = createServer((request, response) => {
        request.resume()
        request.on("end", () => response.writeHead(204).end())
      })
      const receiverPort = yield* listen(receiver)
      // A port nothing listens on: attempts there fail and are retried a minute later.
      const refused = createServer()
      const refusedPort = yield* listen(refused)
      yield* close(refused)
      const server = standalone("metrics", {
        SUPPORT_METRICS_PORT: "0",
        SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
        SUPPORT_WEBHOOK_RETRY_BASE_MS: "60000"
      })
      yield* Effect.gen(function*() {
        const base = yield* baseUrl
        const listener = Option.getOrThrow((yield* MetricsListener).address)
        assert.notStrictEqual(listener._tag, "UnixPathAddress")
        const metricsUrl = `http://127.0.0.1:${listener._tag === "UnixPathAddress" ? 0 : listener.port}/metrics`
        const call = (method: string, path: string, body?: unknown) =>
          Effect.promise(async () => {
            const response = await fetch(`${base}${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              ...(body === undefined ? {} : { body: JSON.stringify(body) })
            })
            await response.text()
            return response.status
          })

        const ready = yield* Effect.promise(() => fetch(`${base}/ready`).then(async (r) => [r.status, await r.json()]))
        assert.deepStrictEqual(ready, [200, { status: "ready" }])
        // Not a metrics route on the API's port.
        assert.strictEqual(yield* call("GET", "/metrics"), 404)

        assert.strictEqual(
          yield* call("POST", "/v1/webhooks", {
            url: `http://127.0.0.1:${receiverPort}/hook`,
            events: ["customer.created"]
          }),
          201
        )
        assert.strictEqual(
          yield* call("POST", "/v1/webhooks", {
            url: `http://127.0.0.1:${refusedPort}/hook`,
            events: ["customer.created"]
          }),
          201
        )
        assert.strictEqual(yield* call("POST", "/v1/customers", { email: "metered@example.test" }), 201)
        assert.strictEqual(yield* call("GET", "/v1/customers/00000000-0000-4000-8000-000000000000"), 404)
        assert.strictEqual(yield* call("GET", "/v1/customers/00000000-0000-4000-8000-000000000001"), 404)

        // Both attempts recorded: one delivered, one to be retried (pending, a minute from now).
        const { contentType, metrics } = yield* scrape(metricsUrl).pipe(
          Effect.filterOrFail(({ metrics }) =>
            (sample(metrics["support_webhook_attempts_total"], { result: "delivered" }) ?? 0) >= 1 &&
            (sample(metrics["support_webhook_attempts_total"], { result: "retry" }) ?? 0) >= 1
          ),
          Effect.retry(Schedule.spaced("100 millis")),
          Effect.timeout("20 seconds")
        )
        assert.strictEqual(contentType, PROMETHEUS_CONTENT_TYPE)

        const requests = metrics["support_http_requests_total"]
        assert.strictEqual(requests?.type, "counter")
        // The route template, never the path: both 404s are one series.
        assert.strictEqual(
          sample(requests, { method: "GET", route: "/v1/customers/:id", status: "404" }),
          2
        )
        assert.strictEqual(sample(requests, { method: "POST", route: "/v1/customers", status: "201" }), 1)
        assert.strictEqual(sample(requests, { method: "GET", route: "/ready", status: "200" }), 1)
        assert.strictEqual(sample(requests, { method: "GET", route: "unmatched", status: "404" }), 1)
        assert.isFalse(samples(requests).some((d) => d.labels["route"]?.includes("00000000") ?? false))

        const duration = metrics["support_http_request_duration_seconds"]
        assert.strictEqual(duration?.type, "histogram")
        const customers = (duration!.data as Array<PromHistogramData>).find((d) =>
          d.labels["route"] === "/v1/customers/:id"
        )
        assert.strictEqual(customers?.count, 2)
        assert.strictEqual(customers?.buckets["+Inf"], 2)
        assert.isTrue((customers?.sum ?? 0) > 0)

        const attempts = metrics["support_webhook_attempts_total"]
        assert.strictEqual(attempts?.type, "counter")
        assert.deepStrictEqual(
          new Set(samples(attempts).map((d) => d.labels["result"])),
          new Set(["delivered", "retry", "failed", "gone"])
        )
        assert.strictEqual(sample(attempts, { result: "delivered" }), 1)
        assert.strictEqual(sample(attempts, { result: "retry" }), 1)
        assert.strictEqual(sample(attempts, { result: "failed" }), 0)

        assert.strictEqual(metrics["support_webhook_deliveries_pending"]?.type, "gauge")
        assert.strictEqual(sample(metrics["support_webhook_deliveries_pending"], {}), 1)
        assert.strictEqual(metrics["support_webhook_oldest_pending_seconds"]?.type, "gauge")
        assert.isTrue((sample(metrics["support_webhook_oldest_pending_seconds"], {}) ?? 0) > 0)

        assert.strictEqual(metrics["support_ai_replies_total"]?.type, "counter")
        assert.strictEqual(sample(metrics["support_ai_replies_total"], { outcome: "answered" }), 0)
        assert.strictEqual(metrics["support_events_pruned_total"]?.type, "counter")
        assert.strictEqual(sample(metrics["support_events_pruned_total"], {}), 0)
      }).pipe(Effect.provide(server))
      yield* close(receiver)
    }))

  it.live("without SUPPORT_METRICS_PORT there is no metrics listener", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(standalone("no-metrics"))
      assert.isTrue(Option.isNone(Context.get(context, MetricsListener).address))
    }).pipe(Effect.scoped))
})
