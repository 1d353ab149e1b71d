/** `GET /openapi.json` (D42): OpenAPI 3.1 that an independent validator accepts, with every path and error. */
import { assert, layer } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { ENDPOINTS } from "./Endpoints.js"
import { raw, tenant, testServer } from "./Harness.js"

type Json = Record<string, unknown>

const asRecord = (value: unknown): Json => {
  assert.isObject(value)
  return value as Json
}

/** The `code` values a response's schema allows, following `$ref`s and `anyOf`. */
const codesOf = (spec: Json, response: unknown): Array<string | null> => {
  const schemas = asRecord(asRecord(spec.components).schemas)
  const walk = (schema: unknown): Array<string | null> => {
    const s = asRecord(schema)
    if (typeof s.$ref === "string") return walk(schemas[s.$ref.replace("#/components/schemas/", "")])
    if (Array.isArray(s.anyOf)) return s.anyOf.flatMap(walk)
    const code = asRecord(asRecord(s.properties).code)
    if (Array.isArray(code.enum)) return code.enum as Array<string>
    return code.type === "null" ? [null] : []
  }
  return walk(asRecord(asRecord(asRecord(response).content)["application/json"]).schema)
}

layer(testServer("openapi"), { excludeTestServices: true })("openapi", (it) => {
  it.effect("is valid OpenAPI 3.1 per @seriousme/openapi-schema-validator", () =>
    Effect.gen(function*() {
      const response = yield* raw("GET", "/openapi.json")
      assert.strictEqual(response.status, 200)
      const spec = asRecord(response.body)
      assert.strictEqual(spec.openapi, "3.1.0")
      const result = yield* Effect.promise(() => new Validator().validate(spec))
      assert.deepStrictEqual(result.errors, undefined)
      assert.isTrue(result.valid)
    }))

  it.effect("lists exactly the served paths and methods, with their success statuses (D21)", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      const paths = asRecord(spec.paths)
      const listed = Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(asRecord(item)).map((method) => `${method.toUpperCase()} ${path}`)
      )
      assert.deepStrictEqual(listed.sort(), ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort())
      for (const endpoint of ENDPOINTS) {
        const operation = asRecord(asRecord(paths[endpoint.path])[endpoint.method.toLowerCase()])
        const statuses = Object.keys(asRecord(operation.responses))
        const success = statuses.filter((s) => s.startsWith("2"))
        assert.deepStrictEqual(success, [String(endpoint.status)], `${endpoint.method} ${endpoint.path}`)
      }
    }))

  it.effect("documents every error an endpoint can answer, in the shapes of D12-D14", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      assert.notInclude(JSON.stringify(spec), "HttpApiDecodeError")
      const paths = asRecord(spec.paths)
      const responsesOf = (method: string, path: string) => asRecord(asRecord(asRecord(paths[path])[method]).responses)
      for (const endpoint of ENDPOINTS) {
        const responses = responsesOf(endpoint.method.toLowerCase(), endpoint.path)
        const label = `${endpoint.method} ${endpoint.path}`
        assert.deepStrictEqual(codesOf(spec, responses["401"]), ["UNAUTHENTICATED"], label)
        assert.include(codesOf(spec, responses["403"]), "INSUFFICIENT_TOKEN_ABILITY", label)
        assert.deepStrictEqual(codesOf(spec, responses["500"]), [null], label)
        const validation = asRecord(asRecord(asRecord(responses["422"]).content)["application/json"]).schema
        assert.isDefined(validation, label)
        if (endpoint.path.includes("{id}")) {
          assert.deepStrictEqual(codesOf(spec, responses["404"]), ["RESOURCE_NOT_FOUND"], label)
        }
        assert.deepStrictEqual(
          asRecord(asRecord(asRecord(paths[endpoint.path])[endpoint.method.toLowerCase()])).security,
          [
            { bearer: [] }
          ]
        )
      }
      assert.deepStrictEqual(codesOf(spec, responsesOf("post", "/v1/conversations")["400"]).sort(), [
        "INVALID_ASSIGNEE",
        "INVALID_ASSIGNEE_TYPE",
        "MALFORMED_JSON"
      ])
      assert.deepStrictEqual(codesOf(spec, responsesOf("post", "/v1/conversations/{id}/messages")["400"]), [
        "INVALID_SENDER",
        "MALFORMED_JSON"
      ])
      for (const method of ["put", "delete"]) {
        assert.include(codesOf(spec, responsesOf(method, "/v1/agents/{id}")["403"]), "FORBIDDEN")
      }
      const schemas = asRecord(asRecord(spec.components).schemas)
      assert.deepStrictEqual(asRecord(schemas.ValidationFailed).required, ["message", "errors"])
      assert.deepStrictEqual(asRecord(schemas.NotFound).required, ["error", "code", "errors"])
      assert.isUndefined(asRecord(schemas.CreateAgent).additionalProperties)
    }))

  it.effect("page and per_page are integer query parameters with their bounds (issue 15 item 8)", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      let lists = 0
      for (const item of Object.values(asRecord(spec.paths))) {
        for (const operation of Object.values(asRecord(item))) {
          const parameters = (asRecord(operation).parameters ?? []) as Array<Json>
          const byName = Object.fromEntries(parameters.map((p) => [p.name, asRecord(p.schema)]))
          if (byName.per_page === undefined) continue
          lists++
          assert.deepInclude(byName.page, { type: "integer", minimum: 1 })
          assert.deepInclude(byName.per_page, { type: "integer", minimum: 1, maximum: 100 })
        }
      }
      assert.isAtLeast(lists, 10)
    }))

  it.effect("every operation has a summary, which /docs shows in its sidebar (issue 15 item 8, issue 20)", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      const summaries = ENDPOINTS.map((endpoint) => {
        const operation = asRecord(asRecord(asRecord(spec.paths)[endpoint.path])[endpoint.method.toLowerCase()])
        assert.isString(operation.summary, `${endpoint.method} ${endpoint.path}`)
        return operation.summary as string
      })
      assert.strictEqual(new Set(summaries).size, summaries.length, "summaries are distinct")
    }))

  it.effect("bodies: 400 MALFORMED_JSON, 413 and 415 documented; a body without required fields is optional", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      const paths = asRecord(spec.paths)
      let bodies = 0
      for (const endpoint of ENDPOINTS) {
        const operation = asRecord(asRecord(paths[endpoint.path])[endpoint.method.toLowerCase()])
        const label = `${endpoint.method} ${endpoint.path}`
        const responses = asRecord(operation.responses)
        if (operation.requestBody === undefined) {
          assert.notProperty(responses, "415", label)
          continue
        }
        bodies++
        assert.include(codesOf(spec, responses["400"]), "MALFORMED_JSON", label)
        assert.deepStrictEqual(codesOf(spec, responses["413"]), ["PAYLOAD_TOO_LARGE"], label)
        assert.deepStrictEqual(codesOf(spec, responses["415"]), ["UNSUPPORTED_MEDIA_TYPE"], label)
      }
      assert.isAtLeast(bodies, 15)
      const body = (method: string, path: string) =>
        asRecord(asRecord(asRecord(paths[path])[method]).requestBody).required
      // The server reads an empty body as {} (D7): rotate-secret and updates need none, creates report 422.
      assert.strictEqual(body("post", "/v1/webhooks/{id}/rotate-secret"), false)
      assert.strictEqual(body("put", "/v1/agents/{id}"), false)
      assert.strictEqual(body("post", "/v1/agents"), true)
      const { token } = yield* tenant()
      const rotated = yield* raw("POST", "/v1/webhooks/00000000-0000-7000-8000-000000000000/rotate-secret", { token })
      assert.strictEqual(rotated.status, 404, "no body is no validation failure: the webhook is looked up")
    }))

  it.effect("schema titles name no Effect internals (minLength(1), int, unknown)", () =>
    Effect.gen(function*() {
      const text = (yield* raw("GET", "/openapi.json")).text
      const titles = Array.from(text.matchAll(/"title":"([^"]*)"/g), (m) => m[1])
      assert.deepStrictEqual(titles, ["support-engine"])
      assert.notMatch(text, /(minLength|maxLength|maxItems|between)\(/)
    }))

  it.effect("names none of the contract's decision numbers (D1...): users read the rules, not references", () =>
    Effect.gen(function*() {
      const text = (yield* raw("GET", "/openapi.json")).text
      assert.deepStrictEqual(Array.from(text.matchAll(/\bD\d{1,2}[a-z]?\b/g), (m) => m[0]), [])
    }))

  it.effect("documents the integrator headers (D52): Idempotency-Key, If-Match, ETag, rate limits, Retry-After", () =>
    Effect.gen(function*() {
      const spec = asRecord((yield* raw("GET", "/openapi.json")).body)
      const paths = asRecord(spec.paths)
      const operation = (path: string, method: string) => asRecord(asRecord(paths[path])[method])
      const parameterNames = (path: string, method: string) =>
        (operation(path, method).parameters as Array<Json>).map((p) => `${String(p.in)}:${String(p.name)}`)
      const headersOf = (path: string, method: string, status: string) =>
        Object.keys(asRecord(asRecord(asRecord(operation(path, method).responses)[status]).headers))
      assert.include(parameterNames("/v1/customers", "post"), "header:Idempotency-Key")
      assert.notInclude(parameterNames("/v1/customers", "get"), "header:Idempotency-Key")
      assert.includeMembers(parameterNames("/v1/customers/{id}", "put"), ["header:If-Match", "header:Idempotency-Key"])
      assert.include(parameterNames("/v1/conversations/{id}", "delete"), "header:If-Match")
      assert.includeMembers(headersOf("/v1/customers/{id}", "get", "200"), ["ETag", "RateLimit", "RateLimit-Policy"])
      assert.includeMembers(headersOf("/v1/customers", "post", "201"), ["ETag", "Idempotent-Replayed"])
      assert.notInclude(headersOf("/v1/customers", "get", "200"), "ETag")
      assert.include(headersOf("/v1/customers", "get", "429"), "Retry-After")
      assert.include(headersOf("/v1/customers/{id}", "put", "412"), "RateLimit")
      const q = parameterNames("/v1/conversations", "get")
      assert.includeMembers(q, ["query:q", "query:cursor", "query:updated_since"])
    }))
})
