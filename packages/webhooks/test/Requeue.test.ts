/**
 * A delivery redelivered while its attempt is still in flight, through the real dispatcher (D38, D52; migration
 * 0029): the dispatcher claims the redelivered delivery again before the old attempt has answered, so it holds two
 * attempts of one delivery under one name. The old attempt's answer (a 410, which would deactivate the webhook) is
 * not recorded; the new round's answer is.
 */
import { assert, describe, it } from "@effect/vitest"
import { Webhooks } from "@support-engine/core"
import { Deferred, Effect } from "effect"
import {
  answer,
  as,
  attemptsAre,
  clockSettings,
  deliveriesOf,
  eventually,
  makeWorkspace,
  next,
  record,
  scriptedTransport,
  subscribe,
  webhookOf,
  withProbedDispatcher
} from "./Harness.js"

describe("Requeued while in flight (D38, D52)", () => {
  it.effect("the answer of an attempt made before a redelivery changes nothing; the redelivery's answer counts", () =>
    Effect.gen(function*() {
      const first = yield* Deferred.make<void>()
      const second = yield* Deferred.make<void>()
      // Each attempt waits until the test lets it answer: the first with a 410, the second with a 200.
      const transport = yield* scriptedTransport((n) =>
        n === 1
          ? Effect.andThen(Deferred.await(first), answer(410))
          : Effect.andThen(Deferred.await(second), answer(200))
      )
      const { layer, probe } = withProbedDispatcher(transport.layer, clockSettings)
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const webhook = yield* subscribe().pipe(as(principal))
        yield* record("agent.deleted", { id: "a" }).pipe(as(principal))
        const sent = yield* next(transport.received)
        const deliveryId = sent.body["id"] as string
        const [inFlight] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(inFlight!.id, deliveryId)

        yield* Effect.flatMap(Webhooks, (w) => w.redeliver(webhook.id, inFlight!.id)).pipe(as(principal))
        const again = yield* next(transport.received)
        assert.strictEqual(again.body["id"], deliveryId, "the dispatcher sends the redelivered delivery at once")

        const since = probe.mark()
        yield* Deferred.succeed(first, undefined)
        // The old attempt is the only one that can finish now: the first record after this point is its answer's.
        yield* eventually(
          Effect.sync(() => probe.records.some((r) => r.startedAt > since)),
          "the dispatcher to hand the old answer to the queue"
        )
        const afterOld = yield* webhookOf(principal, webhook.id)
        assert.isTrue(afterOld.is_active, "the 410 of the round before does not deactivate the webhook")
        const [pending] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(pending!.status, "pending")
        assert.deepStrictEqual(pending!.attempt_log, [], "nor is it logged as an attempt of this round")

        yield* Deferred.succeed(second, undefined)
        yield* attemptsAre(principal, webhook.id, (ds) => ds[0]?.status === "delivered")
        const [delivered] = yield* deliveriesOf(principal, webhook.id)
        assert.strictEqual(delivered!.attempts, 1)
        assert.deepStrictEqual(delivered!.attempt_log.map((a) => a.response_status), [200])
        assert.isTrue((yield* webhookOf(principal, webhook.id)).is_active)
      }).pipe(Effect.provide(layer))
    }))
})
