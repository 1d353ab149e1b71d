/**
 * A delivery queued again while an attempt of it is still in flight (D38, D52, migration 0029): by a redelivery, or
 * by a recovery of a delivery a deactivation cancelled mid-attempt. The dispatcher that holds the old attempt may
 * claim the delivery again before the old attempt ends, under the same name and with the same attempt count; the
 * old attempt's answer belongs to the round before and must change nothing. And what a deactivation left pending
 * (a fan-out on PostgreSQL that committed after it) is cancelled when the webhook is enabled, never sent.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  CreateWebhook,
  DeliveryOutcome,
  DeliveryQueue,
  Events,
  ListWebhookDeliveries,
  RecoverWebhook,
  Transactor,
  Webhooks
} from "@support-engine/core"
import { DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type Adapter, as, makeWorkspace } from "./Harness.js"
import { attemptAt, claimNow, drain, provideWebhooks } from "./WebhookOpsSuite.js"

export const requeueSuite = (adapter: Adapter) =>
  describe(`Requeued while in flight (${adapter.name})`, () => {
    const provide = provideWebhooks(adapter)

    it.effect("an attempt in flight when its delivery is redelivered is not recorded, even claimed again", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          yield* tx.withTransaction(events.record("agent.created", { id: "a" }))
          const [old] = yield* claimNow
          yield* webhooks.redeliver(webhook.id, old!.id)
          const [again] = yield* claimNow
          assert.strictEqual(again!.id, old!.id, "the same dispatcher claims the redelivered delivery")
          assert.strictEqual(again!.claimant, old!.claimant)
          assert.strictEqual(again!.attempts, old!.attempts, "no attempt was recorded in between")

          const now = yield* DateTime.now
          // The old attempt ends in a failure that would deactivate the webhook at once if it counted.
          const oldHeld = yield* queue.complete(
            old!,
            attemptAt(now, 500),
            DeliveryOutcome.Failed({ deactivateAfter: 1 }),
            now
          )
          assert.isFalse(oldHeld, "the attempt of the round before changes nothing")
          const after = yield* webhooks.get(webhook.id)
          assert.isTrue(after.is_active)
          assert.strictEqual(after.consecutive_failures, 0)
          let [delivery] = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
          assert.strictEqual(delivery!.status, "pending")
          assert.deepStrictEqual(delivery!.attempt_log, [])

          assert.isTrue(yield* queue.complete(again!, attemptAt(now, 200), DeliveryOutcome.Delivered(), now))
          ;[delivery] = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
          assert.strictEqual(delivery!.status, "delivered")
          assert.deepStrictEqual(delivery!.attempt_log.map((a) => [a.attempt, a.response_status]), [[1, 200]])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a delivery cancelled mid-attempt and recovered is not failed by that attempt's answer", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        yield* Effect.gen(function*() {
          const since = yield* DateTime.now
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          yield* tx.withTransaction(events.record("agent.created", { id: "a" }))
          yield* tx.withTransaction(events.record("agent.created", { id: "b" }))
          const [first, second] = yield* claimNow
          const now = yield* DateTime.now
          // A 410 to the first deactivates the webhook and cancels the second, whose attempt is still in flight.
          yield* queue.complete(first!, attemptAt(now, 410), DeliveryOutcome.Gone(), now)
          yield* webhooks.enable(webhook.id)
          assert.strictEqual((yield* webhooks.recover(webhook.id, new RecoverWebhook({ since }))).recovered, 2)
          const again = (yield* claimNow).find((c) => c.id === second!.id)
          assert.isDefined(again, "the recovered delivery is claimed again by the same dispatcher")

          assert.isFalse(
            yield* queue.complete(second!, attemptAt(now, 410), DeliveryOutcome.Gone(), now),
            "the cancelled round's answer changes nothing"
          )
          const after = yield* webhooks.get(webhook.id)
          assert.isTrue(after.is_active, "not deactivated again by an answer from before the recovery")
          assert.isTrue(yield* queue.complete(again!, attemptAt(now, 200), DeliveryOutcome.Delivered(), now))
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("enable cancels what a deactivation left pending, as of the deactivation; recover brings it back", () =>
      Effect.gen(function*() {
        yield* drain
        const { principal, workspace } = yield* makeWorkspace()
        const webhooks = yield* Webhooks
        const queue = yield* DeliveryQueue
        const tx = yield* Transactor
        const events = yield* Events
        const sql = yield* SqlClient.SqlClient
        yield* Effect.gen(function*() {
          const since = yield* DateTime.now
          const webhook = yield* webhooks.create(new CreateWebhook({ url: "https://a.example/in", events: ["*"] }))
          yield* tx.withTransaction(events.record("agent.created", { id: "a" }))
          yield* tx.withTransaction(events.record("agent.created", { id: "b" }))
          const [first, second] = yield* claimNow
          const now = yield* DateTime.now
          yield* queue.complete(first!, attemptAt(now, 410), DeliveryOutcome.Gone(), now)
          // What a PostgreSQL fan-out whose markers the deactivation's drain skipped commits after it: a delivery of
          // the inactive webhook, pending and due (made here by hand; two connections would be needed to race it).
          yield* sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = updated_at
            WHERE id = ${second!.id} AND workspace_id = ${workspace.id}`
          assert.strictEqual((yield* claimNow).length, 0, "an inactive webhook's deliveries are not claimed")

          yield* webhooks.enable(webhook.id)
          const deactivatedAt = (yield* webhooks.get(webhook.id)).deactivated_at
          assert.isNull(deactivatedAt)
          const log = (yield* webhooks.deliveries(webhook.id, new ListWebhookDeliveries({}))).data
          const left = log.find((d) => d.id === second!.id)
          assert.strictEqual(left!.status, "cancelled", "enabling does not send what the deactivation cancelled")
          assert.isNull(left!.next_attempt_at)
          assert.strictEqual((yield* claimNow).length, 0)

          assert.strictEqual((yield* webhooks.recover(webhook.id, new RecoverWebhook({ since }))).recovered, 2)
          assert.strictEqual((yield* claimNow).length, 2, "recovered, both are sent")
        }).pipe(as(principal))
      }).pipe(provide))
  })
