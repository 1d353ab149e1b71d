/** `/v1/agents` end to end (D23). */
import { assert, layer } from "@effect/vitest"
import { Agents, CreateAgent, Forbidden } from "@support-engine/core"
import { Effect } from "effect"
import { asTenant, envelope, raw, tenant, testServer, userOf } from "./Harness.js"

layer(testServer("agents"), { excludeTestServices: true })("agents", (it) => {
  it.effect("create with defaults (201), slugs unique per workspace, get, update, delete (204)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.agents.create({ payload: { name: "Support Bot" } })
      assert.deepStrictEqual(
        {
          slug: created.slug,
          description: created.description,
          avatar_url: created.avatar_url,
          max: created.max_messages_per_session,
          tone: created.tone,
          response_length: created.response_length,
          is_active: created.is_active,
          is_copilot: created.is_copilot,
          model: created.model
        },
        {
          slug: "support-bot",
          description: "",
          avatar_url: null,
          max: 100,
          tone: "professional",
          response_length: "medium",
          is_active: true,
          is_copilot: false,
          model: "gpt-4o-mini"
        }
      )
      const second = yield* client.agents.create({ payload: { name: "Support Bot" } })
      assert.strictEqual(second.slug, "support-bot-2")
      const updated = yield* client.agents.update({
        params: { id: created.id },
        payload: { is_active: false, prohibited_phrases: [{ phrase: "refund" }] }
      })
      assert.strictEqual(updated.is_active, false)
      assert.deepStrictEqual(updated.prohibited_phrases.map((p) => p.phrase), ["refund"])
      const inactive = yield* client.agents.list({ query: { is_active: false } })
      assert.deepStrictEqual(inactive.data.map((a) => a.id), [created.id])
      const byQuery = yield* raw("GET", "/v1/agents?is_active=true", { token })
      assert.deepStrictEqual((byQuery.body as { data: Array<{ id: string }> }).data.map((a) => a.id), [second.id])
      assert.strictEqual((yield* raw("GET", "/v1/agents?is_active=yes", { token })).status, 422)
      assert.strictEqual((yield* raw("DELETE", `/v1/agents/${second.id}`, { token })).status, 204)
    }))

  it.effect("auto_reply: false by default, set on create and update, kept when an update omits it (D53)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const plain = yield* client.agents.create({ payload: { name: "Plain" } })
      assert.strictEqual(plain.auto_reply, false)
      const live = yield* client.agents.create({ payload: { name: "Live", auto_reply: true } })
      assert.strictEqual((yield* client.agents.get({ params: { id: live.id } })).auto_reply, true)
      const renamed = yield* client.agents.update({ params: { id: live.id }, payload: { name: "Renamed" } })
      assert.strictEqual(renamed.auto_reply, true)
      const off = yield* client.agents.update({ params: { id: live.id }, payload: { auto_reply: false } })
      assert.strictEqual(off.auto_reply, false)
      const bad = yield* raw("PUT", `/v1/agents/${live.id}`, { token, json: { auto_reply: "yes" } })
      assert.deepStrictEqual([bad.status, Object.keys((bad.body as { errors: object }).errors)], [422, ["auto_reply"]])
    }))

  it.effect("escalation rules name users of the workspace; another workspace's user is a 422 on the entry", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const stranger = yield* tenant()
      const user = yield* userOf(owner)
      const foreign = yield* userOf(stranger)
      const created = yield* owner.client.agents.create({
        payload: { name: "Bot", escalation_rules: [{ channel: "email", rule: "angry", escalate_to: user.id }] }
      })
      assert.deepStrictEqual(created.escalation_rules.map((r) => r.escalate_to), [user.id])
      const refused = yield* raw("PUT", `/v1/agents/${created.id}`, {
        token: owner.token,
        json: {
          escalation_rules: [
            { channel: "chat", rule: "ok", escalate_to: user.id },
            { channel: "chat", rule: "no", escalate_to: foreign.id }
          ]
        }
      })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(Object.keys((refused.body as { errors: object }).errors), [
        "escalation_rules.1.escalate_to"
      ])
    }))

  it.effect("model is refused on update (422, prohibited) and never set by create (D13, D23)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.agents.create({ payload: { name: "Bot" } })
      const refused = yield* raw("PUT", `/v1/agents/${created.id}`, { token, json: { model: "gpt-5" } })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.body, {
        message: "The given data was invalid.",
        errors: { model: ["is prohibited"] }
      })
      const ignored = yield* raw("POST", "/v1/agents", { token, json: { name: "Other", model: "gpt-5" } })
      assert.strictEqual(ignored.status, 201)
      assert.strictEqual((ignored.body as { model: string }).model, "gpt-4o-mini")
    }))

  it.effect("a copilot agent cannot be updated or deleted: 403 FORBIDDEN (D23)", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const copilot = yield* Effect.flatMap(Agents, (agents) =>
        agents.create(new CreateAgent({ name: "Copilot" }), { copilot: true })).pipe(asTenant(owner), Effect.orDie)
      const update = yield* raw("PUT", `/v1/agents/${copilot.id}`, { token: owner.token, json: { name: "x" } })
      assert.strictEqual(update.status, 403)
      assert.deepStrictEqual(update.body, envelope("Copilot agents cannot be modified through the API.", "FORBIDDEN"))
      const remove = yield* Effect.flip(owner.client.agents.delete({ params: { id: copilot.id } }))
      assert.instanceOf(remove, Forbidden)
      assert.strictEqual((yield* owner.client.agents.get({ params: { id: copilot.id } })).is_copilot, true)
    }))

  it.effect("limits: name 255, description 500, max_messages_per_session 1..1000, tone 255 (spec Limits)", () =>
    Effect.gen(function*() {
      const { token } = yield* tenant()
      const cases: ReadonlyArray<readonly [string, unknown, unknown]> = [
        ["name", "n".repeat(255), "n".repeat(256)],
        ["description", "d".repeat(500), "d".repeat(501)],
        ["max_messages_per_session", 1000, 1001],
        ["max_messages_per_session", 1, 0],
        ["tone", "t".repeat(255), "t".repeat(256)],
        ["response_length", "r".repeat(255), "r".repeat(256)],
        ["is_active", false, "false"]
      ]
      for (const [field, ok, bad] of cases) {
        const accepted = yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", [field]: ok } })
        assert.strictEqual(accepted.status, 201, `${field}=${String(ok)}`)
        const refused = yield* raw("POST", "/v1/agents", { token, json: { name: "Bot", [field]: bad } })
        assert.strictEqual(refused.status, 422, `${field}=${String(bad)}`)
        assert.deepStrictEqual(Object.keys((refused.body as { errors: object }).errors), [field])
      }
      const nested = yield* raw("POST", "/v1/agents", {
        token,
        json: { name: "Bot", prohibited_phrases: [{ phrase: "ok" }, { phrase: "" }] }
      })
      assert.strictEqual(nested.status, 422)
      assert.deepStrictEqual(Object.keys((nested.body as { errors: object }).errors), ["prohibited_phrases.1.phrase"])
    }))
})
