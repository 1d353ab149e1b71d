/**
 * `support-engine serve` run for operations (D57), through the built executable: readiness and the metrics listener
 * it announces, and a stop (SIGTERM) that waits at most `SUPPORT_SHUTDOWN_TIMEOUT_MS` for a request in flight, gives
 * the delivery leases back and exits 0.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { StorageLive } from "@support-engine/storage"
import { Clock, Deferred, Effect, Exit, FileSystem, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cliJson, DEADLINE, fetchJson, serve, slowPost } from "./Harness.js"

const TIMEOUT = 180_000

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const fresh = Effect.gen(function*() {
  const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "support-engine-ops-" })
  return { SUPPORT_DATABASE_URL: `file:${dir}/support.db` }
})

/** A webhook receiver that reads each request and never answers; `reached` completes on the first request. */
const silentReceiver = Effect.gen(function*() {
  const reached = yield* Deferred.make<void>()
  const server = createServer((request) => {
    request.resume()
    Deferred.doneUnsafe(reached, Exit.void)
  })
  yield* Effect.acquireRelease(
    Effect.callback<void>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, reached: Deferred.await(reached) }
})

const Claims = Schema.Array(Schema.Struct({ status: Schema.String, claimed_by: Schema.NullOr(Schema.String) }))

describe("support-engine serve: operations (D57)", () => {
  it.live(
    "announces /ready and the metrics listener; SIGTERM cuts a request still running after SUPPORT_SHUTDOWN_TIMEOUT_MS, gives back delivery leases, exits 0",
    () =>
      Effect.gen(function*() {
        const hook = yield* silentReceiver
        const env = {
          ...(yield* fresh),
          SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
          SUPPORT_METRICS_PORT: "0",
          SUPPORT_SHUTDOWN_TIMEOUT_MS: "300"
        }
        const server = yield* serve(env)
        const banner = yield* server.stdout
        const token = /^ {2}export SUPPORT_TOKEN='([^']+)'$/m.exec(banner)?.[1]
        const workspaceId = /Created workspace "Default" \(([0-9a-f-]{36})\)/.exec(banner)?.[1]
        assert.isDefined(token, banner)
        assert.include(banner, `Health:   ${server.baseUrl}/health (ready: ${server.baseUrl}/ready)`)
        const metricsUrl = /^ {2}Metrics: {2}(http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(banner)?.[1]
        assert.isDefined(metricsUrl, banner)

        assert.deepStrictEqual(yield* fetchJson(`${server.baseUrl}/ready`), { status: 200, body: { status: "ready" } })
        const scraped = yield* Effect.promise(() => fetch(metricsUrl!))
        assert.strictEqual(scraped.status, 200)
        assert.include(yield* Effect.promise(() => scraped.text()), "# TYPE support_webhook_deliveries_pending gauge")

        // A delivery attempt in flight: its receiver never answers.
        yield* cliJson(
          env,
          "webhook",
          "create",
          "--workspace",
          workspaceId!,
          "--url",
          hook.url,
          "--events",
          "customer.created",
          "--json"
        )
        const created = yield* fetchJson(`${server.baseUrl}/v1/customers`, {
          method: "POST",
          headers: { ...bearer(token!), "content-type": "application/json" },
          body: JSON.stringify({ email: "held@example.com" })
        })
        assert.strictEqual(created.status, 201)
        yield* Effect.timeout(hook.reached, DEADLINE)

        // A request in flight that never ends: its body never comes.
        const inFlight = yield* slowPost(
          `${server.baseUrl}/v1/companies`,
          { ...bearer(token!), "content-type": "application/json" },
          JSON.stringify({ name: "Never sent" })
        )
        yield* Effect.timeout(inFlight.started, DEADLINE)

        const before = yield* Clock.currentTimeMillis
        assert.strictEqual(yield* server.stop.pipe(Effect.timeout(DEADLINE)), 0)
        const took = (yield* Clock.currentTimeMillis) - before
        // Far below the default 10 s: the configured bound applied.
        assert.isBelow(took, 8_000)
        assert.strictEqual(yield* server.stderr, "")

        const claims = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* Schema.decodeUnknownEffect(Claims)(
            yield* sql`SELECT status, claimed_by FROM webhook_deliveries`
          )
        }).pipe(Effect.provide(StorageLive(env.SUPPORT_DATABASE_URL).pipe(Layer.orDie)))
        assert.deepStrictEqual(claims, [{ status: "pending", claimed_by: null }])
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})
