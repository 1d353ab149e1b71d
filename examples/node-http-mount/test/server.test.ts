/**
 * The host of src/server.ts on a loopback port over a SQLite file: its own routes still answer, the mounted API
 * answers under /v1 with the token's workspace (D9-D11), and closing it releases the port and the engine.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { createSupportEngine } from "@support-engine/engine"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startHost } from "../src/server.js"

const dir = mkdtempSync(join(tmpdir(), "node-http-mount-test-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A workspace and a write token on the database, made before the host opens it, as src/main.ts does. */
const provision = (databaseUrl: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => createSupportEngine({ databaseUrl })),
    (engine) =>
      Effect.promise(async () => {
        const workspace = await engine.workspaces.create({ name: "Mount test" })
        const issued = await engine.tokens.create({
          workspace_id: workspace.id,
          name: "test",
          abilities: ["external-api:write"]
        })
        return issued.token
      }),
    (engine) => Effect.promise(() => engine.dispose())
  )

/** The host for the test's scope, on a free port. */
const host = (databaseUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(() => startHost({ databaseUrl, port: 0 })),
    (running) => Effect.promise(() => running.close())
  )

const request = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

describe("node:http host with the API mounted", () => {
  it.live("the host's routes and the API answer on one port", () =>
    Effect.gen(function*() {
      const databaseUrl = `file:${join(dir, "mount.db")}`
      const token = yield* provision(databaseUrl)
      const { url } = yield* host(databaseUrl)
      const auth = { authorization: `Bearer ${token}` }

      // The host's own routes, untouched by the mount; its 404 is its own, not the API's JSON one.
      const home = yield* request(`${url}/`)
      assert.strictEqual(home.status, 200)
      assert.include(home.text, "My application")
      assert.deepStrictEqual(JSON.parse((yield* request(`${url}/status`)).text), { app: "my-application", ok: true })
      assert.deepStrictEqual(yield* request(`${url}/nope`), {
        status: 404,
        type: "text/plain",
        text: "Not found (host)"
      })

      // The engine's system routes.
      const health = yield* request(`${url}/health`)
      assert.deepStrictEqual([health.status, JSON.parse(health.text)], [200, { status: "ok" }])
      const spec = JSON.parse((yield* request(`${url}/openapi.json`)).text) as { openapi: string; paths: object }
      assert.strictEqual(spec.openapi, "3.1.0")
      assert.property(spec.paths, "/v1/customers")
      const docs = yield* request(`${url}/docs`)
      assert.strictEqual(docs.status, 200)
      assert.match(docs.type ?? "", /^text\/html/)

      // The API: bearer auth (D9), a write, and a list whose links are absolute URLs on the host (D17).
      assert.strictEqual((yield* request(`${url}/v1/customers`)).status, 401)
      const created = yield* request(`${url}/v1/customers`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com", first_name: "Ada" })
      })
      assert.strictEqual(created.status, 201, created.text)
      const customer = JSON.parse(created.text) as { id: string; email: string }
      assert.strictEqual(customer.email, "ada@example.com")
      const list = yield* request(`${url}/v1/customers?per_page=5`, { headers: auth })
      const page = JSON.parse(list.text) as { data: Array<{ id: string }>; links: { first: string } }
      assert.deepStrictEqual(page.data.map((c) => c.id), [customer.id])
      assert.strictEqual(page.links.first, `${url}/v1/customers?per_page=5&page=1`)
      // An unknown API path is the API's JSON 404 (D14), not the host's.
      const unknown = yield* request(`${url}/v1/nope`, { headers: auth })
      assert.strictEqual(unknown.status, 404)
      assert.match(unknown.type ?? "", /^application\/json/)
    }))

  it.live("close() stops listening; a second close is harmless", () =>
    Effect.gen(function*() {
      const databaseUrl = `file:${join(dir, "close.db")}`
      const running = yield* Effect.promise(() => startHost({ databaseUrl, port: 0 }))
      assert.strictEqual((yield* request(`${running.url}/health`)).status, 200)
      yield* Effect.promise(() => running.close())
      yield* Effect.promise(() => running.close())
      const refused = yield* Effect.promise(() =>
        fetch(`${running.url}/health`).then(() => "answered", () => "refused")
      )
      assert.strictEqual(refused, "refused")
    }))
})
