/**
 * `support-engine serve` (D42) as `pnpm start` runs it: a child process on a temporary SQLite file, talked to
 * over real HTTP, stopped with SIGTERM.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Workspaces } from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, Fiber, FileSystem } from "effect"
import { createHmac } from "node:crypto"
import { createServer } from "node:net"
import {
  accepting,
  cli,
  cliJson,
  command,
  DEADLINE,
  eventually,
  fetchJson,
  receiver,
  serve,
  slowPost
} from "./Harness.js"

const TIMEOUT = 180_000

const fresh = Effect.gen(function*() {
  const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "support-engine-serve-" })
  return { SUPPORT_DATABASE_URL: `file:${dir}/support.db` }
})

/** The workspace id and token `serve` printed after bootstrapping an empty database. */
const bootstrapped = (stdout: string) => {
  const workspace = /Created workspace "Default" \(([0-9a-f-]{36})\) with a write token\./.exec(stdout)
  const token = /^ {2}export SUPPORT_TOKEN='([0-9a-f-]{36}\|[A-Za-z0-9_-]{40})'$/m.exec(stdout)
  assert.isNotNull(workspace, stdout)
  assert.isNotNull(token, stdout)
  return { workspaceId: workspace![1]!, token: token![1]! }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe("support-engine serve (D42)", () => {
  it.live(
    "on an empty database: bootstraps once, prints a working token, /health answers 200",
    () =>
      Effect.gen(function*() {
        const env = yield* fresh
        const server = yield* serve(env)
        const stdout = yield* server.stdout
        const { token, workspaceId } = bootstrapped(stdout)
        assert.include(stdout, `listening on ${server.baseUrl}`)
        assert.include(stdout, `${server.baseUrl}/docs`)
        assert.match(stdout, /Data: +\/.+\/support\.db \(SQLite\)/)

        assert.deepStrictEqual(yield* fetchJson(`${server.baseUrl}/health`), { status: 200, body: { status: "ok" } })
        // Both documents are built on first request, and the reference page's script comes from a chunk of the
        // bundle loaded then (packages/cli/build.mjs): both must still answer from the built executable.
        const spec = yield* fetchJson(`${server.baseUrl}/openapi.json`)
        assert.strictEqual((spec.body as { openapi: string }).openapi, "3.1.0")
        const docs = yield* Effect.promise(() => fetch(`${server.baseUrl}/docs`).then((r) => r.text()))
        assert.include(docs, "Minified by jsDelivr")
        assert.include(docs, "/v1/companies")
        const created = yield* fetchJson(`${server.baseUrl}/v1/companies`, {
          method: "POST",
          headers: { ...bearer(token), "content-type": "application/json" },
          body: JSON.stringify({ name: "Globex" })
        })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const listed = yield* fetchJson(`${server.baseUrl}/v1/companies`, { headers: bearer(token) })
        assert.strictEqual(listed.status, 200)
        assert.strictEqual((listed.body as { meta: { total: number } }).meta.total, 1)

        // stdout is a pipe, so the request log is JSON lines (docs/configuration.md, Logs): one per request.
        const requestLines = server.stdout.pipe(Effect.map((out) =>
          out.split("\n").filter((line) => line.startsWith("{")).map((line) =>
            JSON.parse(line) as { message: string; level: string; annotations: Record<string, unknown> }
          ).filter((line) => line.message === "request")
        ))
        yield* eventually(
          Effect.map(requestLines, (lines) =>
            // both the POST and the GET: lines are written in batches, so the GET's may come a moment later
            lines.filter((line) =>
              line.annotations.route === "/v1/companies"
            ).length >= 2),
          () => server.stdout
        )
        const logged = yield* requestLines
        // Each line once, as JSON only: `runMain`'s pretty logger does not print it a second time.
        assert.notMatch(yield* server.stdout, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|WARN|ERROR)/m)
        assert.deepStrictEqual(
          logged.map((line) => [line.level, line.annotations.method, line.annotations.route]).slice(0, 5),
          [
            ["INFO", "GET", "/health"],
            ["INFO", "GET", "/openapi.json"],
            ["INFO", "GET", "/docs"],
            ["INFO", "POST", "/v1/companies"],
            ["INFO", "GET", "/v1/companies"]
          ]
        )
        assert.strictEqual(logged[3]!.annotations.workspace_id, workspaceId)
        assert.notInclude(JSON.stringify(logged), token.split("|")[1]!)

        // A token made with the CLI while the server runs works at once, and stops at once when revoked (D9).
        const issued = yield* cliJson(
          env,
          "token",
          "create",
          "--workspace",
          workspaceId,
          "--name",
          "reader",
          "--ability",
          "external-api:read",
          "--json"
        )
        const reader = issued as { token: string; id: string }
        assert.strictEqual(
          (yield* fetchJson(`${server.baseUrl}/v1/companies`, { headers: bearer(reader.token) })).status,
          200
        )
        const revoked = yield* cli(env, "token", "revoke", "--id", reader.id)
        assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
        const refused = yield* fetchJson(`${server.baseUrl}/v1/companies`, { headers: bearer(reader.token) })
        assert.strictEqual(refused.status, 401)

        assert.strictEqual(yield* server.stop, 0)
        assert.strictEqual(yield* server.stderr, "")

        // Not empty any more: no second workspace, no token printed, the first token still works.
        const again = yield* serve(env)
        const restarted = yield* again.stdout
        assert.notInclude(restarted, "Created workspace")
        assert.include(restarted, "Tokens: support-engine token list/create --workspace <id>")
        assert.strictEqual((yield* fetchJson(`${again.baseUrl}/v1/companies`, { headers: bearer(token) })).status, 200)
        assert.strictEqual(yield* again.stop, 0)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "SIGTERM during a request: the server stops listening, the request completes, exit code 0",
    () =>
      Effect.gen(function*() {
        const env = yield* fresh
        const server = yield* serve(env)
        const { token } = bootstrapped(yield* server.stdout)

        const inFlight = yield* slowPost(
          `${server.baseUrl}/v1/companies`,
          { ...bearer(token), "content-type": "application/json" },
          JSON.stringify({ name: "In flight" })
        )
        yield* Effect.timeout(inFlight.started, DEADLINE)
        const stopping = yield* Effect.forkChild(server.stop)
        // Shutdown has begun: new connections are refused while this request is still waiting for its body.
        yield* eventually(
          Effect.map(accepting(server.port), (ok) => !ok),
          () => Effect.succeed("the server kept listening after SIGTERM")
        )
        yield* inFlight.send
        const response = yield* Effect.timeout(inFlight.response, DEADLINE)
        assert.strictEqual(response.status, 201, response.body)
        assert.strictEqual((JSON.parse(response.body) as { name: string }).name, "In flight")

        assert.strictEqual(yield* Fiber.join(stopping).pipe(Effect.timeout(DEADLINE)), 0)
        assert.strictEqual(yield* server.stderr, "")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "the server's dispatcher delivers events to a webhook created with the CLI (D37, D42)",
    () =>
      Effect.gen(function*() {
        const hook = yield* receiver
        const env = { ...(yield* fresh), SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true" }
        const server = yield* serve(env)
        const { token, workspaceId } = bootstrapped(yield* server.stdout)
        const webhook = (yield* cliJson(
          env,
          "webhook",
          "create",
          "--workspace",
          workspaceId,
          "--url",
          hook.url,
          "--events",
          "customer.created",
          "--json"
        )) as { id: string; secret: string }

        const created = yield* fetchJson(`${server.baseUrl}/v1/customers`, {
          method: "POST",
          headers: { ...bearer(token), "content-type": "application/json" },
          body: JSON.stringify({ email: "ann@example.com" })
        })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))

        const delivery = yield* Effect.timeout(hook.next, DEADLINE)
        assert.strictEqual(delivery.headers["x-service-event"], "customer.created")
        const expected = createHmac("sha256", webhook.secret).update(delivery.body, "utf8").digest("hex")
        assert.strictEqual(delivery.headers["x-service-signature"], expected)
        const body = JSON.parse(delivery.body) as { event: string; data: { id: string; email: string } }
        assert.strictEqual(body.event, "customer.created")
        assert.deepStrictEqual([body.data.id, body.data.email], [
          (created.body as { id: string }).id,
          "ann@example.com"
        ])

        assert.strictEqual(yield* server.stop, 0)
        assert.strictEqual(yield* server.stderr, "")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "a server that cannot listen exits 1 with the reason, and bootstraps nothing",
    () =>
      Effect.gen(function*() {
        const taken = new URL((yield* receiver).url).port
        const env = yield* fresh
        const result = yield* cli({ ...env, SUPPORT_PORT: taken }, "serve")
        assert.strictEqual(result.exitCode, 1)
        assert.strictEqual(result.stdout, "")
        assert.match(result.stderr, /^Error: the HTTP server could not start: listen EADDRINUSE/)
        const workspaces = yield* Effect.flatMap(Workspaces, (w) => w.list).pipe(
          Effect.provide(supportEngineLayer({ databaseUrl: env.SUPPORT_DATABASE_URL, dispatcher: false }))
        )
        assert.strictEqual(workspaces.length, 0)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "every request sent while it starts is answered: refused before it listens, answered after",
    () =>
      Effect.gen(function*() {
        const env = yield* fresh
        const port = yield* Effect.promise(freePort)
        yield* command(["serve"], { ...env, SUPPORT_PORT: String(port) })
        // Polls from the moment the process starts. A connection refused is fine (not listening yet); a request
        // accepted and never answered is what this catches (a handler attached after listening, D42).
        const outcome = yield* Effect.promise(async () => {
          const deadline = Date.now() + 60_000
          while (Date.now() < deadline) {
            const status = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) })
              .then((response) => String(response.status), (error: Error) => error.name)
            if (status !== "TypeError") return status
            await new Promise((resolve) => setTimeout(resolve, 2))
          }
          return "never listened"
        })
        assert.strictEqual(outcome, "200")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
