/**
 * The request log (issue 16 item 7, docs/configuration.md "Logs"): one info line per request with the method, the
 * route template, the status, the duration, the request id and the workspace, and nothing a client sent (token,
 * header values, path ids, query, body); every 5xx logged once more, at error, with its request id and cause; the
 * X-Request-Id rule (a well-formed id of the client is kept, anything else replaced) and its echo.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Companies, PersistenceError } from "@support-engine/core"
import { Cause, Effect, Layer, Logger, References } from "effect"
import { engineLayer, raw, serverLayer, tenant } from "./Harness.js"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
  readonly cause: string
}

const lines: Array<Line> = []
const CaptureLogs = Logger.layer([
  Logger.make(({ cause, fiber, logLevel, message }) => {
    lines.push({
      level: logLevel.toUpperCase(),
      message: Array.isArray(message) && message.length === 1 ? message[0] : message,
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) },
      cause: cause.reasons.length === 0 ? "" : Cause.pretty(cause)
    })
  })
])

/** The lines written for the request that answered with `requestId`. */
const linesOf = (requestId: string | null) => lines.filter((line) => line.annotations.request_id === requestId)

const requestLine = (requestId: string | null): Line => {
  const found = linesOf(requestId).filter((line) => line.message === "request")
  assert.strictEqual(found.length, 1, `one request line for ${requestId}: ${JSON.stringify(lines.slice(-5))}`)
  return found[0]!
}

/** Companies whose `list` fails with a typed storage error and whose `get` dies: the two kinds of 5xx. */
const Failing = Layer.succeed(
  Companies,
  Companies.of({
    create: () => Effect.die(new Error("boom")),
    get: () => Effect.die(new Error("disk on fire")),
    update: () => Effect.die(new Error("boom")),
    delete: () => Effect.die(new Error("boom")),
    list: () => Effect.fail(new PersistenceError({ reason: "SQLITE_BUSY: database is locked" }))
  })
)

describe("request log", () => {
  layer(
    serverLayer(engineLayer("request-log"), { logLevel: "Info" }).pipe(Layer.provide(CaptureLogs)),
    { excludeTestServices: true }
  )((it) => {
    it.effect("one info line: method, route template, status, duration, request id, workspace; nothing sent", () =>
      Effect.gen(function*() {
        const { token, workspace } = yield* tenant()
        const created = yield* raw("POST", "/v1/companies", {
          token,
          json: { name: "SecretBodyName" },
          headers: { "x-custom": "SecretHeaderValue" }
        })
        const id = (created.body as { id: string }).id
        const read = yield* raw("GET", `/v1/companies/${id}?secret_query=SecretQueryValue`, { token })
        assert.strictEqual(read.status, 200)
        const line = requestLine(read.headers.get("x-request-id"))
        assert.strictEqual(line.level, "INFO")
        const { duration_ms, ...fields } = line.annotations
        assert.deepStrictEqual(fields, {
          method: "GET",
          route: "/v1/companies/:id",
          status: 200,
          request_id: read.headers.get("x-request-id"),
          workspace_id: workspace.id
        })
        assert.isNumber(duration_ms)
        const post = requestLine(created.headers.get("x-request-id"))
        assert.deepStrictEqual([post.annotations.route, post.annotations.status], ["/v1/companies", 201])
        const written = JSON.stringify(lines)
        for (
          const secret of [token, token.split("|")[1]!, id, "SecretBodyName", "SecretHeaderValue", "SecretQueryValue"]
        ) {
          assert.notInclude(written, secret)
        }
      }))

    it.effect("refused requests: 401 without a workspace, 422 and 404 with their route, an unknown path as no route", () =>
      Effect.gen(function*() {
        const { token, workspace } = yield* tenant()
        const unauthenticated = yield* raw("GET", "/v1/customers", { token: "nonsense" })
        assert.deepStrictEqual(
          [
            requestLine(unauthenticated.headers.get("x-request-id")).annotations.status,
            requestLine(unauthenticated.headers.get("x-request-id")).annotations.workspace_id
          ],
          [401, null]
        )
        const invalid = yield* raw("POST", "/v1/customers", { token, json: { email: 5 } })
        const refused = requestLine(invalid.headers.get("x-request-id")).annotations
        assert.deepStrictEqual([refused.route, refused.status, refused.workspace_id], [
          "/v1/customers",
          422,
          workspace.id
        ])
        const missing = yield* raw("GET", "/v1/nothing-here/SecretPathSegment", { token })
        const unknown = requestLine(missing.headers.get("x-request-id")).annotations
        assert.deepStrictEqual([unknown.route, unknown.status], [null, 404])
        const health = yield* raw("GET", "/health")
        assert.strictEqual(requestLine(health.headers.get("x-request-id")).annotations.route, "/health")
        assert.notInclude(JSON.stringify(lines), "SecretPathSegment")
      }))

    it.effect("X-Request-Id: a well-formed id is kept and echoed; a malformed one is replaced by a new UUID", () =>
      Effect.gen(function*() {
        const kept = yield* raw("GET", "/health", { headers: { "x-request-id": "client-id:42.a_b" } })
        assert.strictEqual(kept.headers.get("x-request-id"), "client-id:42.a_b")
        assert.strictEqual(requestLine("client-id:42.a_b").annotations.status, 200)
        for (const bad of ["has space", "x".repeat(129), "semi;colon", ""]) {
          const replaced = yield* raw("GET", "/health", { headers: { "x-request-id": bad } })
          const id = replaced.headers.get("x-request-id")
          assert.match(id ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, bad)
          assert.strictEqual(requestLine(id).annotations.status, 200)
        }
      }))
  })

  layer(
    serverLayer(Layer.merge(engineLayer("request-log-failures"), Failing), { logLevel: "Info" }).pipe(
      Layer.provide(CaptureLogs)
    ),
    { excludeTestServices: true }
  )((it) => {
    it.effect("a typed storage failure: 500, logged once at error with its request id and reason", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const response = yield* raw("GET", "/v1/companies", { token })
        assert.strictEqual(response.status, 500)
        const requestId = response.headers.get("x-request-id")
        const errors = linesOf(requestId).filter((line) => line.level === "ERROR")
        assert.strictEqual(errors.length, 1, JSON.stringify(linesOf(requestId)))
        assert.include(errors[0]!.cause, "PersistenceError")
        assert.strictEqual(errors[0]!.annotations.reason, "SQLITE_BUSY: database is locked")
        assert.strictEqual(errors[0]!.annotations.route, "/v1/companies")
        assert.strictEqual(requestLine(requestId).annotations.status, 500)
      }))

    it.effect("a defect: 500, logged once at error with its request id and cause", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const response = yield* raw("GET", "/v1/companies/00000000-0000-4000-8000-000000000000", { token })
        assert.strictEqual(response.status, 500)
        const requestId = response.headers.get("x-request-id")
        const errors = linesOf(requestId).filter((line) => line.level === "ERROR")
        assert.strictEqual(errors.length, 1, JSON.stringify(linesOf(requestId)))
        assert.include(errors[0]!.cause, "disk on fire")
        assert.strictEqual(requestLine(requestId).annotations.status, 500)
      }))
  })
})
