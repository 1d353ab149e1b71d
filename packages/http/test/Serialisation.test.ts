/**
 * One serialisation per resource over HTTP (issue 20 item 1): the answer to a create or update, a GET, the
 * resource's list entry and its event data are the same JSON text, lists inside it in their documented order
 * (docs/responses.md). The storage conformance suite checks the same on SQLite and PostgreSQL.
 */
import { assert, layer } from "@effect/vitest"
import { TrainingDataId } from "@support-engine/core"
import { Effect } from "effect"
import { processed, raw, tenant, testServer, userOf } from "./Harness.js"

/** A parsed JSON value as text again: JSON.parse keeps key order, so equal texts mean equal serialisations. */
const text = (value: unknown): string => JSON.stringify(value)

layer(testServer("serialisation"), { excludeTestServices: true })("one serialisation", (it) => {
  it.effect("every resource: POST answer = GET = list entry; PUT answer = GET", () =>
    Effect.gen(function*() {
      const owner = yield* tenant()
      const { token } = owner
      const user = yield* userOf(owner)
      const check = (
        path: string,
        create: unknown,
        update: unknown,
        settle?: (id: string) => Effect.Effect<unknown>
      ) =>
        Effect.gen(function*() {
          const created = yield* raw("POST", path, { token, json: create })
          assert.strictEqual(created.status, 201, `${path} ${created.text}`)
          const { id, secret: _secret, ...shown } = created.body as { id: string; secret?: string }
          if (settle === undefined) {
            const fetched = yield* raw("GET", `${path}/${id}`, { token })
            // A webhook's create answer alone shows its secret (D46); everything else is the same text.
            assert.strictEqual(text(fetched.body), text({ id, ...shown }), path)
          } else {
            yield* settle(id)
          }
          const updated = yield* raw("PUT", `${path}/${id}`, { token, json: update })
          assert.strictEqual(updated.status, 200, `${path} ${updated.text}`)
          const again = yield* raw("GET", `${path}/${id}`, { token })
          assert.strictEqual(again.text, updated.text, path)
          const listed = yield* raw("GET", `${path}?per_page=100`, { token })
          const entry = (listed.body as { data: Array<{ id: string }> }).data.find((item) => item.id === id)
          assert.strictEqual(text(entry), again.text, path)
          return again.body as Record<string, unknown>
        })

      const company = yield* check("/v1/companies", { name: "Globex", domain: "globex.test" }, { country: "NL" })
      const customer = yield* check("/v1/customers", { email: "ada@example.test", company_id: company.id }, {
        first_name: "Ada"
      })
      const agent = yield* check("/v1/agents", {
        name: "Bot",
        prohibited_phrases: [{ phrase: "zebra" }, { phrase: "apple" }],
        escalation_rules: [{ channel: "email", rule: "z", escalate_to: user.id }, {
          channel: "chat",
          rule: "a",
          escalate_to: user.id
        }]
      }, { prohibited_phrases: [{ phrase: "yak" }, { phrase: "bee" }] })
      assert.deepStrictEqual((agent.prohibited_phrases as Array<{ phrase: string }>).map((p) => p.phrase), [
        "yak",
        "bee"
      ])
      const conversation = yield* check("/v1/conversations", { customer_id: customer.id, tags: ["vip", "able"] }, {
        tags: ["zulu", "alpha"]
      })
      assert.deepStrictEqual(conversation.tags, ["zulu", "alpha"])
      // Text training data is queued and then processed by the worker: compared once it is done.
      const training = yield* check("/v1/training-data", { type: "text", title: "FAQ", content: "x" }, {
        agent_ids: [agent.id]
      }, (id) => processed(owner.client, TrainingDataId.make(id)))
      assert.deepStrictEqual(training.agent_ids, [agent.id])
      const article = yield* check("/v1/kb-articles", {
        translations: [{ locale: "en", title: "Refunds" }, { locale: "de", title: "Erstattungen" }]
      }, { position: 2 })
      assert.deepStrictEqual((article.translations as Array<{ locale: string }>).map((t) => t.locale), ["en", "de"])
      const webhook = yield* check("/v1/webhooks", {
        url: "https://hooks.example.test/a",
        events: ["customer.updated", "customer.created"]
      }, { description: "CRM" })
      assert.deepStrictEqual(webhook.events, ["customer.updated", "customer.created"])

      const events = yield* raw("GET", "/v1/events?event=customer.updated&per_page=1", { token })
      const data = (events.body as { data: Array<{ data: unknown }> }).data[0]!.data
      assert.strictEqual(text(data), (yield* raw("GET", `/v1/customers/${customer.id}`, { token })).text)
    }))
})
