/** `/v1/companies` end to end (D21, D22, D25). */
import { assert, layer } from "@effect/vitest"
import { CompanyId, NotFound } from "@support-engine/core"
import { Effect } from "effect"
import { envelope, raw, tenant, testServer } from "./Harness.js"

const missing = CompanyId.make("00000000-0000-4000-8000-000000000000")

layer(testServer("companies"), { excludeTestServices: true })("companies", (it) => {
  it.effect("create (201), get, update (200), delete (204 empty) through the typed client", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.companies.create({ payload: { name: "Globex", domain: "globex.test" } })
      assert.strictEqual(created.name, "Globex")
      assert.strictEqual(created.domain, "globex.test")
      assert.strictEqual(created.country, null)
      const fetched = yield* client.companies.get({ params: { id: created.id } })
      assert.deepStrictEqual(fetched, created)
      const updated = yield* client.companies.update({ params: { id: created.id }, payload: { country: "NL" } })
      assert.strictEqual(updated.country, "NL")
      assert.strictEqual(updated.domain, "globex.test")
      yield* client.companies.delete({ params: { id: created.id } })
      const gone = yield* Effect.flip(client.companies.get({ params: { id: created.id } }))
      assert.instanceOf(gone, NotFound)

      const response = yield* raw("POST", "/v1/companies", { token, json: { name: "Initech" } })
      assert.strictEqual(response.status, 201)
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
      const body = response.body as Record<string, unknown>
      assert.match(String(body.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
      const deleted = yield* raw("DELETE", `/v1/companies/${String(body.id)}`, { token })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
    }))

  it.effect("404 RESOURCE_NOT_FOUND for a missing id, 422 for a non-UUID id", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const notFound = yield* raw("GET", `/v1/companies/${missing}`, { token })
      assert.strictEqual(notFound.status, 404)
      assert.deepStrictEqual(notFound.body, envelope("Company not found.", "RESOURCE_NOT_FOUND"))
      const invalid = yield* raw("GET", "/v1/companies/not-a-uuid", { token })
      assert.strictEqual(invalid.status, 422)
      const body = invalid.body as { message: string; errors: Record<string, Array<string>> }
      assert.strictEqual(body.message, "The given data was invalid.")
      assert.deepStrictEqual(Object.keys(body.errors), ["id"])
    }))

  it.effect("422 with every invalid body field, keyed by request name (D13)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const response = yield* raw("POST", "/v1/companies", {
        token,
        json: { name: "x".repeat(256), domain: 5, country: "true", unknown_field: 1 }
      })
      assert.strictEqual(response.status, 422)
      const body = response.body as { errors: Record<string, Array<string>> }
      assert.deepStrictEqual(Object.keys(body.errors).sort(), ["domain", "name"])
    }))
})
