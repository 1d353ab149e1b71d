/**
 * Webhooks through the Promise API (issue 14 item 5, D3): `createSupportEngine` runs the dispatcher, so a
 * subscription made in process is delivered to a receiver on 127.0.0.1, verifies with the package's receiver helper
 * (D39), and can be redelivered under the same id (D37).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { verifySync } from "@support-engine/webhooks"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSupportEngine } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-webhooks-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Hit {
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** A receiver on 127.0.0.1 answering 204; `next()` resolves with the next request it gets. */
const receiver = async () => {
  const waiting: Array<(hit: Hit) => void> = []
  const early: Array<Hit> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      res.writeHead(204).end()
      const hit = { headers: req.headers, body: Buffer.concat(chunks) }
      const resolve = waiting.shift()
      if (resolve === undefined) early.push(hit)
      else resolve(hit)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    next: () => {
      const hit = early.shift()
      return hit === undefined ? new Promise<Hit>((resolve) => waiting.push(resolve)) : Promise.resolve(hit)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("createSupportEngine with webhooks", () => {
  it("subscribes, delivers to a loopback receiver verified with verifySync, and redelivers (D37, D39)", async () => {
    const target = await receiver()
    const engine = createSupportEngine({
      databaseUrl: `file:${join(dir, "w.db")}`,
      webhooks: { allowPrivate: true }
    })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const webhook = await api.webhooks.create({ url: target.url, events: ["customer.created"] })
      assert.match(webhook.secret, /^whsec_/)
      assert.deepStrictEqual((await api.webhooks.get(webhook.id)).url, target.url)

      const customer = await api.customers.create({ email: "ada@example.com", first_name: "Ada" })
      const first = await target.next()
      const payload = verifySync(first.body, first.headers, webhook.secret)
      assert.strictEqual(payload.event, "customer.created")
      assert.strictEqual(payload.data["id"], customer.id)

      // The attempt is recorded after the answer: wait for the log to say delivered.
      const delivered = async () => {
        for (;;) {
          const log = await api.webhooks.deliveries(webhook.id)
          if (log.data[0]?.status === "delivered") return log.data[0]
          await new Promise((resolve) => setImmediate(resolve))
        }
      }
      const delivery = await delivered()
      assert.strictEqual(delivery.id, payload.id)

      const queued = await api.webhooks.redeliver(webhook.id, delivery.id)
      assert.strictEqual(queued.status, "pending")
      const again = await target.next()
      const replay = verifySync(again.body, again.headers, webhook.secret)
      assert.strictEqual(replay.id, delivery.id)
      assert.deepStrictEqual(replay.data, payload.data)

      const listed = await api.webhooks.list()
      assert.deepStrictEqual(listed.data.map((w) => w.id), [webhook.id])
    } finally {
      await engine.dispose()
      await target.close()
    }
  })

  it("with dispatcher: false the event waits for a dispatcher; reopened with one, on the same file, it goes out", async () => {
    // Issue 16 item 2: the write leaves the event and a marker; the deliveries are made by a dispatcher's fan-out
    // step. An engine without one (or one that stops between the commit and its fan-out) loses nothing.
    const target = await receiver()
    const options = { databaseUrl: `file:${join(dir, "off.db")}`, webhooks: { allowPrivate: true } }
    try {
      const off = createSupportEngine({ ...options, dispatcher: false, trainingWorker: false })
      let ids: {
        readonly workspace: string
        readonly webhook: string
        readonly secret: string
        readonly customer: string
      }
      try {
        const workspace = await off.workspaces.create({ name: "Acme" })
        const api = await off.workspace(workspace.id)
        const webhook = await api.webhooks.create({ url: target.url, events: ["*"] })
        const customer = await api.customers.create({ email: "ada@example.com" })
        assert.deepStrictEqual((await api.webhooks.deliveries(webhook.id)).data, [], "no fan-out without a dispatcher")
        ids = { workspace: workspace.id, webhook: webhook.id, secret: webhook.secret, customer: customer.id }
      } finally {
        await off.dispose()
      }

      const on = createSupportEngine({ ...options, trainingWorker: false })
      try {
        // The first call starts the engine, and its dispatcher with it.
        const api = await on.workspace(ids.workspace)
        const hit = await target.next()
        const payload = verifySync(hit.body, hit.headers, ids.secret)
        assert.deepStrictEqual([payload.event, payload.data["id"]], ["customer.created", ids.customer])
        for (;;) {
          const log = (await api.webhooks.deliveries(ids.webhook)).data
          if (log[0]?.status === "delivered") {
            assert.deepStrictEqual(log.map((d) => [d.id, d.attempts]), [[payload.id, 1]], "fanned out once")
            break
          }
          await new Promise((resolve) => setImmediate(resolve))
        }
      } finally {
        await on.dispose()
      }
    } finally {
      await target.close()
    }
  })

  it("dispose() mid-delivery gives the lease back: reopened on the same file, the delivery goes out at once", async () => {
    // The first request is never answered (the attempt is in flight when the engine is disposed); later ones get 204.
    const hits: Array<Hit> = []
    let arrived: () => void = () => {}
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        hits.push({ headers: req.headers, body: Buffer.concat(chunks) })
        if (hits.length > 1) res.writeHead(204).end()
        arrived()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const nextHit = (count: number) =>
      new Promise<void>((resolve) => {
        arrived = () => hits.length >= count && resolve()
        arrived()
      })
    const options = { databaseUrl: `file:${join(dir, "dispose.db")}`, webhooks: { allowPrivate: true } }
    try {
      const first = createSupportEngine(options)
      const workspace = await first.workspaces.create({ name: "Acme" })
      const webhook = await (await first.workspace(workspace.id)).webhooks.create({ url, events: ["customer.created"] })
      await (await first.workspace(workspace.id)).customers.create({ email: "ada@example.com" })
      await nextHit(1)
      // Disposing interrupts the attempt in flight and releases its lease (the default lease is the 30 s timeout and
      // more, far beyond this test's limit), without counting the attempt.
      await first.dispose()

      // Looked at with no dispatcher running: pending, not counted, and due now rather than at the lease's end.
      const idle = createSupportEngine({ ...options, dispatcher: false })
      try {
        const [held] = (await (await idle.workspace(workspace.id)).webhooks.deliveries(webhook.id)).data
        assert.deepStrictEqual([held?.status, held?.attempts], ["pending", 0])
        assert.isAtMost(Date.parse(held!.next_attempt_at!), Date.now(), "due at once: the lease was given back")
      } finally {
        await idle.dispose()
      }

      const second = createSupportEngine(options)
      try {
        const api = await second.workspace(workspace.id)
        await nextHit(2)
        const [again] = hits.slice(1)
        const payload = verifySync(again!.body, again!.headers, webhook.secret)
        assert.strictEqual(payload.event, "customer.created")
        for (;;) {
          const [delivery] = (await api.webhooks.deliveries(webhook.id)).data
          if (delivery?.status === "delivered") {
            assert.deepStrictEqual([delivery.id, delivery.attempts], [payload.id, 1], "the interrupted try not counted")
            break
          }
          await new Promise((resolve) => setImmediate(resolve))
        }
      } finally {
        await second.dispose()
      }
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it("ping, recover and If-Match in process (D52): the ping reaches the receiver, verified; recover counts", async () => {
    const target = await receiver()
    const engine = createSupportEngine({
      databaseUrl: `file:${join(dir, "ops.db")}`,
      webhooks: { allowPrivate: true }
    })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const webhook = await api.webhooks.create({ url: target.url, events: ["customer.created"] })
      const delivery = await api.webhooks.ping(webhook.id)
      assert.strictEqual(delivery.event, "webhook.ping")
      const hit = await target.next()
      const payload = verifySync(hit.body, hit.headers, webhook.secret)
      assert.deepStrictEqual([payload.event, payload.id, payload.data], ["webhook.ping", delivery.id, {
        webhook_id: webhook.id
      }])
      assert.deepStrictEqual((await api.events.list()).data, [], "a ping is not in the event log")

      const recovery = await api.webhooks.recover(webhook.id, { since: "2026-01-01T00:00:00Z" })
      assert.deepStrictEqual(recovery, {
        webhook_id: webhook.id,
        since: "2026-01-01T00:00:00.000+00:00",
        until: null,
        recovered: 0
      })
      const refused = await api.webhooks.recover(webhook.id, { since: "yesterday" }).then(() => null, (e: unknown) => e)
      assert.deepStrictEqual((refused as { errors?: unknown }).errors, { since: ["must be an RFC 3339 date-time"] })

      const tag = engine.entityTagOf(await api.webhooks.get(webhook.id))
      const updated = await api.webhooks.update(webhook.id, { description: "CRM" }, { ifMatch: tag })
      assert.strictEqual(updated.description, "CRM")
      const stale = await api.webhooks.delete(webhook.id, { ifMatch: tag }).then(() => null, (e: unknown) => e)
      assert.strictEqual((stale as { _tag?: string })._tag, "PreconditionFailed")
      await api.webhooks.delete(webhook.id, { ifMatch: engine.entityTagOf(updated) })
    } finally {
      await engine.dispose()
      await target.close()
    }
  })
})
