import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { EventType } from "../src/events/Event.js"
import { decodeRequest } from "../src/shared/Validation.js"
import {
  CreateWebhook,
  ListWebhookDeliveries,
  normalizeEvents,
  RotateWebhookSecret,
  UpdateWebhook
} from "../src/webhooks/Webhook.js"

const url = (length: number) => {
  const prefix = "https://hooks.example.com/"
  return prefix + "a".repeat(length - prefix.length)
}
const keys = <A>(self: Effect.Effect<A, { readonly errors: Record<string, unknown> }>) =>
  Effect.map(Effect.flip(self), (e) => Object.keys(e.errors))

/** Webhook requests (D36, D46): limits at their bound and one past it (D33), strict types (D13). */
describe("Webhook requests", () => {
  const create = decodeRequest(CreateWebhook)

  it.effect("url is an absolute http(s) URL of at most 2,048 characters", () =>
    Effect.gen(function*() {
      yield* create({ url: url(2048), events: ["*"] })
      assert.deepStrictEqual(yield* keys(create({ url: url(2049), events: ["*"] })), ["url"])
      assert.deepStrictEqual(yield* keys(create({ url: "hooks.example.com", events: ["*"] })), ["url"])
      assert.deepStrictEqual(yield* keys(create({ url: "ftp://hooks.example.com", events: ["*"] })), ["url"])
      assert.deepStrictEqual(yield* keys(create({ events: ["*"] })), ["url"])
    }))

  it.effect("events: 1 to 100 known types or * (D48)", () =>
    Effect.gen(function*() {
      const all = [...EventType.literals.filter((type) => type !== "webhook.ping"), "*"]
      yield* create({ url: url(30), events: all })
      const hundred = Array.from({ length: 100 }, (_, i) => all[i % all.length]!)
      yield* create({ url: url(30), events: hundred })
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: [...hundred, "*"] })), ["events"])
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: [] })), ["events"])
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: ["agent.created", "agent.exploded"] })), [
        "events.1"
      ])
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: "*" })), ["events"])
      // A ping goes to one webhook through POST /webhooks/{id}/ping; it is not subscribed to (D52).
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: ["webhook.ping"] })), ["events.0"])
    }))

  it.effect("description: null or at most 65,535 characters", () =>
    Effect.gen(function*() {
      yield* create({ url: url(30), events: ["*"], description: "d".repeat(65_535) })
      yield* create({ url: url(30), events: ["*"], description: null })
      const long = create({ url: url(30), events: ["*"], description: "d".repeat(65_536) })
      assert.deepStrictEqual(yield* keys(long), ["description"])
      assert.deepStrictEqual(yield* keys(create({ url: url(30), events: ["*"], description: 5 })), ["description"])
    }))

  it.effect("update takes any subset; present fields are validated as on create (D22)", () =>
    Effect.gen(function*() {
      const update = decodeRequest(UpdateWebhook)
      yield* update({})
      yield* update({ description: null })
      assert.deepStrictEqual(yield* keys(update({ url: null })), ["url"])
      assert.deepStrictEqual(yield* keys(update({ events: [] })), ["events"])
    }))

  it.effect("grace_period_seconds: an integer from 0 to 7 days (D46)", () =>
    Effect.gen(function*() {
      const rotate = decodeRequest(RotateWebhookSecret)
      yield* rotate({})
      yield* rotate({ grace_period_seconds: 0 })
      yield* rotate({ grace_period_seconds: 604_800 })
      for (const bad of [604_801, -1, 1.5, "60"]) {
        assert.deepStrictEqual(yield* keys(rotate({ grace_period_seconds: bad })), ["grace_period_seconds"])
      }
    }))

  it.effect("the delivery log filters by a known status", () =>
    Effect.gen(function*() {
      const list = decodeRequest(ListWebhookDeliveries)
      assert.strictEqual((yield* list({ status: "failed" })).status, "failed")
      assert.deepStrictEqual(yield* keys(list({ status: "lost" })), ["status"])
    }))

  it("normalizeEvents removes duplicates and lets * stand alone", () => {
    assert.deepStrictEqual(normalizeEvents(["agent.created", "agent.deleted", "agent.created"]), [
      "agent.created",
      "agent.deleted"
    ])
    assert.deepStrictEqual(normalizeEvents(["agent.created", "*"]), ["*"])
  })
})
