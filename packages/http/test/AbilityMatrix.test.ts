/**
 * Every endpoint x every ability over HTTP (D10, D11, D58): a token carrying only that ability either gets past
 * the ability check (any answer but 401/403) or is refused with 403 `INSUFFICIENT_TOKEN_ABILITY` naming the
 * resource's ability and the broad one. The endpoints are Endpoints.ts's list, which OpenApi.test.ts holds equal
 * to the served document, so a new endpoint is in the matrix (and must name its resource) without touching this
 * file. The expectation is computed here from each endpoint's declared resource, not from the server's table.
 */
import { assert, layer } from "@effect/vitest"
import { ABILITIES, type Ability, type Resource } from "@support-engine/core"
import { Effect } from "effect"
import { abilityTable } from "../src/shared/Abilities.js"
import { concrete, ENDPOINTS, type EndpointSpec } from "./Endpoints.js"
import { envelope, raw, tenant, testServer } from "./Harness.js"

type Access = "read" | "write"

const accessOf = (endpoint: EndpointSpec): Access =>
  endpoint.method === "GET" || endpoint.reads === true ? "read" : "write"

/** D58 stated directly: the resource's write ability or the broad write one; for a read, also the read ones. */
const allows = (ability: Ability, resource: Resource | null, access: Access): boolean => {
  if (resource === null) return true
  const [scope, level] = ability.split(":")
  const scopeMatches = scope === "external-api" || scope === resource
  return scopeMatches && (level === "write" || access === "read")
}

const lacking = (resource: Resource, access: Access) =>
  envelope(
    `This token lacks the ${resource}:${access} (or external-api:${access}) ability.`,
    "INSUFFICIENT_TOKEN_ABILITY"
  )

/** A body for every write: an empty object, which no create accepts, so an allowed call changes nothing. */
const requestOf = (endpoint: EndpointSpec, token: string) =>
  raw(endpoint.method, concrete(endpoint.path), endpoint.method === "GET" ? { token } : { token, json: {} })

layer(testServer("ability-matrix"))("ability matrix", (it) => {
  it.effect("every endpoint x every ability: allowed, or 403 naming the resource's ability and the broad one", () =>
    Effect.gen(function*() {
      const tokens = yield* Effect.forEach(
        ABILITIES,
        (ability) => Effect.map(tenant([ability]), ({ token }) => ({ ability, token }))
      )
      let allowed = 0
      let refused = 0
      for (const endpoint of ENDPOINTS) {
        const access = accessOf(endpoint)
        for (const { ability, token } of tokens) {
          const label = `${endpoint.method} ${endpoint.path} with ${ability}`
          const response = yield* requestOf(endpoint, token)
          if (allows(ability, endpoint.resource, access)) {
            allowed++
            assert.notInclude([401, 403], response.status, `${label}: ${response.text}`)
          } else {
            refused++
            assert.strictEqual(response.status, 403, label)
            assert.deepStrictEqual(response.body, lacking(endpoint.resource!, access), label)
          }
        }
      }
      // Both halves of the matrix are exercised, and every cell was visited.
      assert.strictEqual(allowed + refused, ENDPOINTS.length * ABILITIES.length)
      assert.isAbove(refused, ENDPOINTS.length)
      assert.isAbove(allowed, ENDPOINTS.length)
    }))

  it.effect("the document states, per operation, exactly the abilities that allow it (x-required-abilities)", () =>
    Effect.gen(function*() {
      const spec = (yield* raw("GET", "/openapi.json")).body as {
        paths: Record<string, Record<string, { "x-required-abilities"?: ReadonlyArray<string> }>>
      }
      for (const endpoint of ENDPOINTS) {
        const operation = spec.paths[endpoint.path]?.[endpoint.method.toLowerCase()]
        const expected = endpoint.resource === null
          ? []
          : ABILITIES.filter((ability) => allows(ability, endpoint.resource, accessOf(endpoint)))
        assert.deepStrictEqual(
          [...(operation?.["x-required-abilities"] ?? ["missing"])].sort(),
          [...expected].sort(),
          `${endpoint.method} ${endpoint.path}`
        )
      }
    }))

  it.effect("D11: the ability is checked before validation and existence (403, not 422 or 404)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant(["customers:read"])
      const invalid = yield* raw("POST", "/v1/customers", { token, json: { email: 42 } })
      assert.strictEqual(invalid.status, 403)
      const missing = yield* raw("DELETE", concrete("/v1/customers/{id}"), { token })
      assert.deepStrictEqual(missing.body, lacking("customers", "write"))
      const read = yield* raw("GET", concrete("/v1/customers/{id}"), { token })
      assert.strictEqual(read.status, 404)
    }))

  it.effect("GET /v1/token answers the calling token, whatever its abilities", () =>
    Effect.gen(function*() {
      const { token, workspace } = yield* tenant(["customers:read", "events:read"])
      const response = yield* raw("GET", "/v1/token", { token })
      assert.strictEqual(response.status, 200)
      const body = response.body as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body), [
        "id",
        "workspace_id",
        "name",
        "abilities",
        "expires_at",
        "last_used_at",
        "created_at"
      ])
      assert.strictEqual(body.id, token.split("|")[0])
      assert.strictEqual(body.workspace_id, workspace.id)
      assert.deepStrictEqual(body.abilities, ["customers:read", "events:read"])
      assert.strictEqual(body.expires_at, null)
      assert.strictEqual((yield* raw("GET", "/v1/token", {})).status, 401)
    }))

  it.effect("docs/integrations.md holds the table of abilities generated from the same table", () =>
    Effect.gen(function*() {
      const spec = (yield* raw("GET", "/openapi.json")).body as Record<string, unknown>
      const table = abilityTable(spec)
      const { readFileSync } = yield* Effect.promise(() => import("node:fs"))
      const doc = readFileSync(new URL("../../../docs/integrations.md", import.meta.url), "utf8")
      assert.include(doc, table, `docs/integrations.md must contain the generated table:\n${table}\n`)
    }))
})
