/** `GET /openapi.json` (D42): OpenAPI 3.1 that an independent validator accepts, with every path and error. */
import { assert, layer } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { ENDPOINTS } from "./Endpoints.js"
import { raw, testServer } from "./Harness.js"

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
        "INVALID_ASSIGNEE_TYPE"
      ])
      assert.deepStrictEqual(codesOf(spec, responsesOf("post", "/v1/conversations/{id}/messages")["400"]), [
        "INVALID_SENDER"
      ])
      for (const method of ["put", "delete"]) {
        assert.include(codesOf(spec, responsesOf(method, "/v1/agents/{id}")["403"]), "FORBIDDEN")
      }
      const schemas = asRecord(asRecord(spec.components).schemas)
      assert.deepStrictEqual(asRecord(schemas.ValidationFailed).required, ["message", "errors"])
      assert.deepStrictEqual(asRecord(schemas.NotFound).required, ["error", "code", "errors"])
      assert.isUndefined(asRecord(schemas.CreateAgent).additionalProperties)
    }))
})
