/** The ways a host runs the API (D3c, D41, D42): web handler, node:http listener, the standalone server. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { makeNodeHandler, makeWebHandler } from "../src/index.js"
import { baseUrl, close, engineLayer, listen, provision, standalone } from "./Harness.js"

describe("hosting", () => {
  it.live("makeWebHandler answers web Requests with the whole API", () =>
    Effect.gen(function*() {
      const token = yield* provision("web")
      const { dispose, handler } = makeWebHandler(engineLayer("web"))
      const health = yield* Effect.promise(() => handler(new Request("http://host.test/health")))
      assert.strictEqual(health.status, 200)
      const created = yield* Effect.promise(() =>
        handler(
          new Request("http://host.test/v1/companies", {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "Globex" })
          })
        )
      )
      assert.strictEqual(created.status, 201)
      assert.strictEqual(((yield* Effect.promise(() => created.json())) as { name: string }).name, "Globex")
      const list = yield* Effect.promise(() =>
        handler(
          new Request("http://host.test/v1/companies?per_page=5", { headers: { authorization: `Bearer ${token}` } })
        )
      )
      const body = (yield* Effect.promise(() => list.json())) as { links: { first: string } }
      assert.strictEqual(body.links.first, "http://host.test/v1/companies?per_page=5&page=1")
      yield* Effect.promise(dispose)
    }))

  it.live("makeWebHandler applies the D7 body rules to web Requests: 413 past the limit, 400 for broken JSON", () =>
    Effect.gen(function*() {
      const token = yield* provision("web-body")
      const { dispose, handler } = makeWebHandler(engineLayer("web-body"))
      const post = (body: string | ReadableStream<Uint8Array>, extra: Record<string, string> = {}) =>
        Effect.promise(() =>
          handler(
            new Request("http://host.test/v1/companies", {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...extra },
              body,
              duplex: "half"
            } as RequestInit)
          )
        )
      const megabyte = new TextEncoder().encode("x".repeat(1_048_576))
      // No Content-Length: the limit (1 MiB, D41's default) is found while reading, draining and then abandoning.
      for (const pieces of [2, 3]) {
        let sent = 0
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < pieces) controller.enqueue(megabyte)
            else controller.close()
          }
        })
        const response = yield* post(body)
        assert.strictEqual(response.status, 413, `${pieces} MiB`)
        assert.strictEqual(
          ((yield* Effect.promise(() => response.json())) as { code: string }).code,
          "PAYLOAD_TOO_LARGE"
        )
      }
      assert.strictEqual((yield* post("{not json")).status, 400)
      assert.strictEqual((yield* post(JSON.stringify({ name: "Globex" }))).status, 201)
      yield* Effect.promise(dispose)
    }))

  it.live("makeNodeHandler mounts in an existing node:http server beside the host's own routes", () =>
    Effect.gen(function*() {
      const token = yield* provision("node")
      const { dispose, handler } = makeNodeHandler(engineLayer("node"))
      const server = createServer((request, response) => {
        if (request.url?.startsWith("/v1/") || request.url === "/health") return handler(request, response)
        response.writeHead(200, { "content-type": "text/plain" })
        response.end("host")
      })
      const port = yield* listen(server)
      const base = `http://127.0.0.1:${port}`
      const own = yield* Effect.promise(() => fetch(`${base}/`).then((r) => r.text()))
      assert.strictEqual(own, "host")
      const created = yield* Effect.promise(() =>
        fetch(`${base}/v1/companies`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "Globex" })
        })
      )
      assert.strictEqual(created.status, 201)
      const missing = yield* Effect.promise(() =>
        fetch(`${base}/v1/nope`, { headers: { authorization: `Bearer ${token}` } })
      )
      assert.strictEqual(missing.status, 404)
      yield* close(server)
      yield* Effect.promise(dispose)
    }))

  it.live("StandaloneLive serves from the environment and delivers webhooks (D41, D42, D37)", () =>
    Effect.gen(function*() {
      const token = yield* provision("standalone")
      const received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: string }> = []
      const receiver = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
          response.writeHead(204).end()
        })
      })
      const receiverPort = yield* listen(receiver)
      const server = standalone("standalone", {
        SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true",
        SUPPORT_WEBHOOK_RETRY_BASE_MS: "200"
      })
      yield* Effect.gen(function*() {
        const base = yield* baseUrl
        const call = (method: string, path: string, body?: unknown) =>
          Effect.promise(async () => {
            const response = await fetch(`${base}${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              ...(body === undefined ? {} : { body: JSON.stringify(body) })
            })
            return { status: response.status, body: (await response.json()) as Record<string, unknown> }
          })
        assert.strictEqual((yield* Effect.promise(() => fetch(`${base}/health`))).status, 200)
        const webhook = yield* call("POST", "/v1/webhooks", {
          url: `http://127.0.0.1:${receiverPort}/hook`,
          events: ["customer.created"]
        })
        assert.strictEqual(webhook.status, 201)
        const customer = yield* call("POST", "/v1/customers", { email: "ada@example.test" })
        assert.strictEqual(customer.status, 201)
        yield* Effect.sync(() => received.length).pipe(
          Effect.filterOrFail((n) => n > 0),
          Effect.retry(Schedule.spaced("50 millis")),
          Effect.timeout("10 seconds")
        )
        const [delivery] = received
        const parsed = JSON.parse(delivery!.body) as { event: string; data: { id: string; email: string } }
        assert.strictEqual(parsed.event, "customer.created")
        assert.deepStrictEqual([parsed.data.id, parsed.data.email], [customer.body.id, "ada@example.test"])
        assert.strictEqual(delivery!.headers["x-service-event"], "customer.created")
        const expected = createHmac("sha256", String(webhook.body.secret)).update(delivery!.body).digest("hex")
        assert.strictEqual(delivery!.headers["x-service-signature"], expected)
      }).pipe(Effect.provide(server))
      yield* close(receiver)
    }))
})
