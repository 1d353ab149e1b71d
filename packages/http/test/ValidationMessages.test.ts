/**
 * Validation messages in plain words (issue 20 item 2): the HTTP answer, the typed client's `ValidationError`
 * and the Promise API's thrown error carry the same field errors, made by core's decoders (D13).
 */
import { assert, layer } from "@effect/vitest"
import { ValidationError } from "@support-engine/core"
import { createSupportEngine } from "@support-engine/engine"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { raw, tenant, testServer } from "./Harness.js"

const SECRET = "sk_live_do-not-echo-0123456789"

const BAD_AGENT = {
  name: "",
  avatar_url: `https://cdn.example.test/${SECRET}/${"x".repeat(2100)}`,
  max_messages_per_session: 0,
  is_active: "true",
  escalation_rules: [{ channel: "sms", rule: "r", escalate_to: SECRET }],
  prohibited_phrases: [{ phrase: 5 }]
}

const EXPECTED = {
  name: ["must not be empty"],
  avatar_url: ["must be at most 2,048 characters"],
  max_messages_per_session: ["must be between 1 and 1,000"],
  is_active: ["must be a boolean"],
  "escalation_rules.0.channel": ["must be one of: email, chat"],
  "escalation_rules.0.escalate_to": ["must be a UUID"],
  "prohibited_phrases.0.phrase": ["must be a string"]
}

/** The Promise API's field errors for the same body, thrown as a `ValidationError`. */
const promiseErrors = Effect.acquireUseRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "support-engine-messages-"))),
  (dir) =>
    Effect.promise(async () => {
      const engine = createSupportEngine({ databaseUrl: `file:${join(dir, "m.db")}` })
      try {
        const workspace = await engine.workspaces.create({ name: "Acme" })
        const api = await engine.workspace(workspace.id)
        const thrown: unknown = await api.agents.create(BAD_AGENT as never).then(() => null, (e: unknown) => e)
        return thrown
      } finally {
        await engine.dispose()
      }
    }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

layer(testServer("validation-messages"), { excludeTestServices: true })("validation messages", (it) => {
  it.effect("a bad body: the same plain messages over HTTP and from the Promise API, no value echoed", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const response = yield* raw("POST", "/v1/agents", { token, json: BAD_AGENT })
      assert.strictEqual(response.status, 422)
      assert.deepStrictEqual(response.body, { message: "The given data was invalid.", errors: EXPECTED })
      assert.notInclude(response.text, SECRET)
      const thrown = yield* promiseErrors
      assert.deepInclude(thrown, { _tag: "ValidationError", status: 422, errors: EXPECTED })
    }))

  it.effect("query and path parameters: integers, ranges, UUIDs, literals", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const list = yield* raw("GET", "/v1/conversations?page=abc&per_page=500&status=gone", { token })
      assert.strictEqual(list.status, 422)
      assert.deepStrictEqual(list.body, {
        message: "The given data was invalid.",
        errors: {
          page: ["must be an integer"],
          per_page: ["must be between 1 and 100"],
          status: ["must be one of: open, closed"]
        }
      })
      const get = yield* raw("GET", `/v1/agents/${SECRET}`, { token })
      assert.deepStrictEqual(get.body, { message: "The given data was invalid.", errors: { id: ["must be a UUID"] } })
    }))

  it.effect("the typed client refuses a bad request before sending it with the server's ValidationError (D51)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const body = { name: "x".repeat(300), domain: 5 }
      const before = yield* raw("GET", "/v1/companies", { token })
      const local = yield* Effect.flip(client.companies.create({ payload: body as never }))
      const server = yield* raw("POST", "/v1/companies", { token, json: body })
      const expected = { name: ["must be at most 255 characters"], domain: ["must be null or a string"] }
      assert.deepStrictEqual(server.body, { message: "The given data was invalid.", errors: expected })
      assert.instanceOf(local, ValidationError)
      assert.deepStrictEqual(local._tag === "ValidationError" ? local.errors : null, expected)
      // Nothing was sent: the list is as it was.
      const after = yield* raw("GET", "/v1/companies", { token })
      assert.deepStrictEqual(after.body, before.body)
    }))

  it.effect("a bad path parameter in the typed client is a ValidationError naming the field", () =>
    Effect.gen(function*() {
      const { client } = yield* tenant()
      const local = yield* Effect.flip(client.agents.get({ params: { id: "not-a-uuid" as never } }))
      assert.instanceOf(local, ValidationError)
      assert.deepStrictEqual(local._tag === "ValidationError" ? Object.keys(local.errors) : null, ["id"])
    }))
})
