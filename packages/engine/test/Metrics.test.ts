/**
 * The embedded engine's metrics (D57) are Effect metrics in the host process's registry: a host reads them with
 * `Metric.snapshot`, no listener needed. A webhook whose receiver answers 410 is counted `gone`.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSupportEngine } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-metrics-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const attempts = (result: string) =>
  Effect.runSync(Metric.snapshot).find((s) =>
    s.id === "support_webhook_attempts_total" && s.attributes?.["result"] === result
  )

describe("the embedded engine's metrics (D57)", () => {
  it("are in the host's Effect metric registry: a 410 answer counts as a gone attempt", async () => {
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => response.writeHead(410).end())
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "m.db")}`, webhooks: { allowPrivate: true } })
    try {
      const workspace = await engine.workspaces.create({ name: "Acme" })
      const api = await engine.workspace(workspace.id)
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      const webhook = await api.webhooks.create({ url, events: ["customer.created"] })
      await api.customers.create({ email: "ada@example.com" })
      // The attempt is recorded after the answer; a 410 deactivates the webhook in the same transaction.
      while ((await api.webhooks.get(webhook.id)).is_active) await new Promise((resolve) => setImmediate(resolve))
      const gone = attempts("gone")
      assert.strictEqual(gone?.type, "Counter")
      assert.deepStrictEqual(gone?.type === "Counter" ? gone.state.count : undefined, 1)
      assert.isUndefined(attempts("delivered"))
    } finally {
      await engine.dispose()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
