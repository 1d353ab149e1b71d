/** `/v1/customers` end to end (D19, D22, D24). */
import { assert, layer } from "@effect/vitest"
import { ValidationError } from "@support-engine/core"
import { Effect } from "effect"
import { raw, tenant, testServer } from "./Harness.js"

layer(testServer("customers"), { excludeTestServices: true })("customers", (it) => {
  it.effect("create (201), get, update, delete (204); PUT changes only the fields present (D22)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const company = yield* client.companies.create({ payload: { name: "Globex" } })
      const created = yield* client.customers.create({
        payload: { email: "ada@example.test", first_name: "Ada", company_id: company.id }
      })
      assert.strictEqual(created.company_id, company.id)
      assert.strictEqual(created.last_name, null)
      const updated = yield* client.customers.update({ params: { id: created.id }, payload: { last_name: "Lovelace" } })
      assert.strictEqual(updated.first_name, "Ada")
      assert.strictEqual(updated.last_name, "Lovelace")
      const cleared = yield* raw("PUT", `/v1/customers/${created.id}`, { token, json: { company_id: null } })
      assert.strictEqual(cleared.status, 200)
      assert.strictEqual((cleared.body as { company_id: unknown }).company_id, null)
      // A decoded Customer is compared by its fields: @effect/vitest 4 compares class instances with Equal.
      assert.deepStrictEqual({ ...(yield* client.customers.get({ params: { id: created.id } })) }, {
        ...updated,
        company_id: null,
        updated_at: (yield* client.customers.get({ params: { id: created.id } })).updated_at
      })
      const deleted = yield* raw("DELETE", `/v1/customers/${created.id}`, { token })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual((yield* raw("GET", `/v1/customers/${created.id}`, { token })).status, 404)
    }))

  it.effect("filters email (exact) and company_id (D19)", () =>
    Effect.gen(function*() {
      const { client } = yield* tenant()
      const company = yield* client.companies.create({ payload: { name: "Globex" } })
      yield* client.customers.create({ payload: { email: "a@example.test", company_id: company.id } })
      yield* client.customers.create({ payload: { email: "b@example.test" } })
      const byEmail = yield* client.customers.list({ query: { email: "b@example.test" } })
      assert.deepStrictEqual(byEmail.data.map((c) => c.email), ["b@example.test"])
      assert.strictEqual(byEmail.meta.total, 1)
      const byCompany = yield* client.customers.list({ query: { company_id: company.id } })
      assert.deepStrictEqual(byCompany.data.map((c) => c.email), ["a@example.test"])
      const all = yield* client.customers.list({ query: {} })
      assert.strictEqual(all.meta.total, 2)
    }))

  it.effect("core's 422s arrive as ValidationError: duplicate email, foreign company, nothing to identify (D24)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const other = yield* tenant()
      const foreign = yield* other.client.companies.create({ payload: { name: "Elsewhere" } })
      yield* client.customers.create({ payload: { email: "ada@example.test" } })
      const duplicate = yield* Effect.flip(client.customers.create({ payload: { email: "ADA@example.test" } }))
      assert.instanceOf(duplicate, ValidationError)
      assert.deepStrictEqual(Object.keys((duplicate as ValidationError).errors), ["email"])
      const company = yield* raw("POST", "/v1/customers", {
        token,
        json: { first_name: "Bo", company_id: foreign.id }
      })
      assert.strictEqual(company.status, 422)
      assert.deepStrictEqual(Object.keys((company.body as { errors: object }).errors), ["company_id"])
      const empty = yield* raw("POST", "/v1/customers", { token, json: { last_name: "Only" } })
      assert.strictEqual(empty.status, 422)
      assert.deepStrictEqual(Object.keys((empty.body as { errors: object }).errors).sort(), [
        "email",
        "first_name",
        "phone"
      ])
    }))

  it.effect("limits at their bound and one past it (spec Limits); typed JSON, no coercion (D13)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const fields = { first_name: 100, last_name: 100, phone: 50, locale: 10, country: 255 } as const
      for (const [field, max] of Object.entries(fields)) {
        const ok = yield* raw("POST", "/v1/customers", { token, json: { first_name: "x", [field]: "y".repeat(max) } })
        assert.strictEqual(ok.status, 201, field)
        const over = yield* raw("POST", "/v1/customers", {
          token,
          json: { first_name: "x", [field]: "y".repeat(max + 1) }
        })
        assert.strictEqual(over.status, 422, field)
        assert.deepStrictEqual(Object.keys((over.body as { errors: object }).errors), [field])
      }
      const badEmail = yield* raw("POST", "/v1/customers", { token, json: { email: "not-an-email" } })
      assert.deepStrictEqual(Object.keys((badEmail.body as { errors: object }).errors), ["email"])
      const coerced = yield* raw("POST", "/v1/customers", { token, json: { first_name: 10 } })
      assert.strictEqual(coerced.status, 422)
      assert.deepStrictEqual(Object.keys((coerced.body as { errors: object }).errors), ["first_name"])
    }))
})
