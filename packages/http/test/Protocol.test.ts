/**
 * What every endpoint shares (D7, D10-D13): authentication and abilities, the JSON body rules, unknown routes
 * and methods, request ids, defects, and the routes beside `/v1`.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Companies, PersistenceError } from "@support-engine/core"
import { Cause, Effect, Exit, Layer, Logger, References } from "effect"
import { UNAUTHENTICATED_MESSAGES } from "../src/shared/Authentication.js"
import { ENDPOINTS } from "./Endpoints.js"
import { engineLayer, envelope, raw, serverLayer, tenant } from "./Harness.js"

const LIMIT = 4096

layer(serverLayer(engineLayer("protocol"), { maxBodyBytes: LIMIT }), { excludeTestServices: true })(
  "protocol",
  (it) => {
    it.effect("401 UNAUTHENTICATED says whether the header is missing, malformed or not accepted (issue 15 item 8)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const forged = `${token.slice(0, 37)}${"A".repeat(40)}`
        const unknownId = `00000000-0000-7000-8000-000000000000${token.slice(36)}`
        const cases: Array<[Record<string, string>, string]> = [
          [{}, UNAUTHENTICATED_MESSAGES.missing],
          [{ authorization: "" }, UNAUTHENTICATED_MESSAGES.missing],
          [{ authorization: "Bearer nonsense" }, UNAUTHENTICATED_MESSAGES.malformed],
          [{ authorization: token }, UNAUTHENTICATED_MESSAGES.malformed],
          [{ authorization: `Basic ${token}` }, UNAUTHENTICATED_MESSAGES.malformed],
          // A wrong secret and an unknown id read the same: nothing tells which tokens exist (D9).
          [{ authorization: `Bearer ${forged}` }, UNAUTHENTICATED_MESSAGES.rejected],
          [{ authorization: `Bearer ${unknownId}` }, UNAUTHENTICATED_MESSAGES.rejected]
        ]
        for (const [headers, message] of cases) {
          const response = yield* raw("GET", "/v1/companies", { headers })
          assert.strictEqual(response.status, 401, JSON.stringify(headers))
          assert.deepStrictEqual(response.body, envelope(message, "UNAUTHENTICATED"))
        }
        assert.strictEqual((yield* raw("GET", "/v1/companies", { token })).status, 200)
      }))

    it.effect("401 comes before 422 and 404: an invalid request without a token is still 401 (D11)", () =>
      Effect.gen(function*() {
        const response = yield* raw("POST", "/v1/companies", { json: { name: 5 } })
        assert.strictEqual(response.status, 401)
        assert.strictEqual((yield* raw("GET", "/v1/companies/not-a-uuid")).status, 401)
      }))

    it.effect("403 INSUFFICIENT_TOKEN_ABILITY naming the ability; read suffices for GET; 403 before 422 (D10, D11)", () =>
      Effect.gen(function*() {
        const reader = yield* tenant(["external-api:read"])
        assert.strictEqual((yield* raw("GET", "/v1/companies", { token: reader.token })).status, 200)
        const denied = yield* raw("POST", "/v1/companies", { token: reader.token, json: { name: "Globex" } })
        assert.strictEqual(denied.status, 403)
        assert.deepStrictEqual(
          denied.body,
          envelope(
            "This token lacks the companies:write (or external-api:write) ability.",
            "INSUFFICIENT_TOKEN_ABILITY"
          )
        )
        const invalid = yield* raw("POST", "/v1/companies", { token: reader.token, json: { name: 5 } })
        assert.strictEqual(invalid.status, 403)
        const deleting = yield* raw("DELETE", "/v1/companies/not-a-uuid", { token: reader.token })
        assert.strictEqual(deleting.status, 403)
      }))

    it.effect("415 UNSUPPORTED_MEDIA_TYPE for a body that is not application/json (D7)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
          const response = yield* raw("POST", "/v1/companies", {
            token,
            body: "name=Globex",
            headers: { "content-type": contentType }
          })
          assert.strictEqual(response.status, 415, contentType)
          assert.deepStrictEqual(
            response.body,
            envelope("Request bodies must be JSON (Content-Type: application/json).", "UNSUPPORTED_MEDIA_TYPE")
          )
        }
        const charset = yield* raw("POST", "/v1/companies", {
          token,
          body: JSON.stringify({ name: "Globex" }),
          headers: { "content-type": "application/json; charset=utf-8" }
        })
        assert.strictEqual(charset.status, 201)
      }))

    it.effect("400 MALFORMED_JSON for a body that does not parse (D7)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        for (const body of ["{", "{\"name\": }", "nul", new Uint8Array([0x7b, 0xff, 0x7d])]) {
          const response = yield* raw("PUT", "/v1/companies/00000000-0000-4000-8000-000000000000", {
            token,
            body,
            headers: { "content-type": "application/json" }
          })
          assert.strictEqual(response.status, 400)
          assert.deepStrictEqual(response.body, envelope("The request body is not valid JSON.", "MALFORMED_JSON"))
        }
      }))

    it.effect("an empty body reads as {}: a create reports its missing fields (422)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const response = yield* raw("POST", "/v1/companies", { token })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(response.body, {
          message: "The given data was invalid.",
          errors: { name: ["is required"] }
        })
      }))

    it.effect("413 PAYLOAD_TOO_LARGE past the configured limit, whether or not Content-Length says so (D7)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const filler = "x".repeat(LIMIT)
        const declared = yield* raw("POST", "/v1/companies", { token, json: { name: "Globex", domain: filler } })
        assert.strictEqual(declared.status, 413)
        assert.deepStrictEqual(declared.body, envelope(`The request body exceeds ${LIMIT} bytes.`, "PAYLOAD_TOO_LARGE"))
        const encoder = new TextEncoder()
        const streamed = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(`{"name":"Globex","domain":"${filler}"}`))
            controller.close()
          }
        })
        const response = yield* raw("POST", "/v1/companies", {
          token,
          stream: streamed,
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(response.status, 413)
        const fits = yield* raw("POST", "/v1/companies", { token, json: { name: "x".repeat(200) } })
        assert.strictEqual(fits.status, 201)
      }))

    it.effect("past twice the limit the request is abandoned, and the server goes on serving (D7)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const chunk = new TextEncoder().encode("x".repeat(LIMIT))
        let sent = 0
        // Sent in pieces, without Content-Length: the limit is found while reading.
        const flood = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < 4) controller.enqueue(chunk)
            else controller.close()
          }
        })
        const abandoned = yield* Effect.exit(
          raw("POST", "/v1/companies", { token, stream: flood, headers: { "content-type": "application/json" } })
        )
        // Either the 413 arrives before the connection is dropped, or the client sees the drop.
        if (Exit.isSuccess(abandoned)) assert.strictEqual(abandoned.value.status, 413)
        else assert.include(String(Cause.squash(abandoned.cause)), "fetch failed")
        const after = yield* raw("POST", "/v1/companies", { token, json: { name: "Still here" } })
        assert.strictEqual(after.status, 201)
      }))

    it.effect("404 ROUTE_NOT_FOUND for an unknown path, with or without a token (D12)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const paths = ["/v1/nope", "/v2/companies", "/", "/v1/companies/00000000-0000-4000-8000-000000000000/x"]
        for (const path of paths) {
          const response = yield* raw("GET", path, { token })
          assert.strictEqual(response.status, 404, path)
          assert.deepStrictEqual(response.body, envelope("The route could not be found.", "ROUTE_NOT_FOUND"))
        }
        assert.strictEqual((yield* raw("POST", "/v1/nope")).status, 404)
      }))

    it.effect("405 METHOD_NOT_ALLOWED with Allow for a known path (D12)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const collection = yield* raw("PATCH", "/v1/companies", { token, json: {} })
        assert.strictEqual(collection.status, 405)
        assert.deepStrictEqual(
          collection.body,
          envelope("The method is not allowed for this route.", "METHOD_NOT_ALLOWED")
        )
        assert.strictEqual(collection.headers.get("allow"), "POST, GET")
        const item = yield* raw("POST", "/v1/companies/00000000-0000-4000-8000-000000000000")
        assert.strictEqual(item.status, 405)
        assert.strictEqual(item.headers.get("allow"), "GET, PUT, DELETE")
        assert.strictEqual((yield* raw("DELETE", "/health")).status, 405)
        assert.strictEqual((yield* raw("PATCH", "/v1/companies/", { token, json: {} })).status, 405)
      }))

    it.effect("every response carries X-Request-Id; a sane incoming one is echoed", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const responses = [
          yield* raw("GET", "/v1/companies", { token }),
          yield* raw("GET", "/v1/companies"),
          yield* raw("GET", "/v1/nope"),
          yield* raw("GET", "/health")
        ]
        const ids = responses.map((r) => r.headers.get("x-request-id"))
        for (const id of ids) assert.match(id ?? "", /^[0-9a-f-]{36}$/)
        assert.strictEqual(new Set(ids).size, ids.length)
        const echoed = yield* raw("GET", "/health", { headers: { "x-request-id": "trace-42" } })
        assert.strictEqual(echoed.headers.get("x-request-id"), "trace-42")
        const refused = yield* raw("GET", "/health", { headers: { "x-request-id": "<script>" } })
        assert.notStrictEqual(refused.headers.get("x-request-id"), "<script>")
      }))

    it.effect("GET /health is 200 {status: ok} without a token (D42)", () =>
      Effect.gen(function*() {
        const response = yield* raw("GET", "/health")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(response.body, { status: "ok" })
      }))

    it.effect("GET /docs is a self-contained HTML reference: no script or stylesheet from another host", () =>
      Effect.gen(function*() {
        const response = yield* raw("GET", "/docs")
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", /^text\/html/)
        assert.notMatch(response.text, /<script[^>]+src=/)
        assert.notMatch(response.text, /<link[^>]+href="https?:/)
        for (const endpoint of ENDPOINTS) assert.include(response.text, `"${endpoint.path}"`, endpoint.path)
      }))
  }
)

/** A core service that dies: the stand-in for any bug. */
const Broken = Layer.succeed(
  Companies,
  Companies.of({
    create: () => Effect.die(new Error("SQLITE_CORRUPT: table companies secret_column")),
    get: () => Effect.die(new Error("SQLITE_CORRUPT: table companies secret_column")),
    update: () => Effect.die(new Error("boom")),
    delete: () => Effect.die(new Error("boom")),
    list: () => Effect.fail(new PersistenceError({ reason: "SQLITE_BUSY: database table secret_column is locked" }))
  })
)

const logged: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
const CaptureLogs = Logger.layer([
  Logger.make(({ fiber, message }) => {
    logged.push({ message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
  })
])

describe("defects", () => {
  layer(
    serverLayer(Layer.merge(engineLayer("defects"), Broken).pipe(Layer.provide(CaptureLogs))),
    { excludeTestServices: true }
  )((it) => {
    it.effect("a defect is a 500 with no internals, logged with the request id it sends (D12)", () =>
      Effect.gen(function*() {
        const { token } = yield* tenant()
        const response = yield* raw("GET", "/v1/companies/00000000-0000-4000-8000-000000000000", { token })
        assert.strictEqual(response.status, 500)
        assert.deepStrictEqual(response.body, envelope("Internal server error.", null))
        assert.notInclude(response.text, "SQLITE")
        const requestId = response.headers.get("x-request-id")
        assert.isNotNull(requestId)
        const entry = logged.find((log) => log.annotations.request_id === requestId)
        assert.isDefined(entry)
        assert.include(String(entry?.message), "Unhandled defect")
      }))

    it.effect("a storage failure is the same 500 body, and the typed client gets core's PersistenceError", () =>
      Effect.gen(function*() {
        const { client, token } = yield* tenant()
        const response = yield* raw("GET", "/v1/companies", { token })
        assert.strictEqual(response.status, 500)
        assert.deepStrictEqual(response.body, envelope("Internal server error.", null))
        assert.notInclude(response.text, "SQLITE")
        assert.instanceOf(yield* Effect.flip(client.companies.list({ query: {} })), PersistenceError)
      }))
  })
})
