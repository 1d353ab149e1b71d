/**
 * Webhook secrets encrypted at rest (issue 16 item 8) seen from the dispatcher: deliveries are still signed with
 * the secret the API returned, verified by the standardwebhooks package, before and during a rotation (D46). The
 * stored columns themselves are checked in storage's SecretsAtRest.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { RotateWebhookSecret, Webhooks } from "@support-engine/core"
import { Duration, Effect, Queue, Redacted } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import {
  answer,
  as,
  clockSettings,
  makeWorkspace,
  type Received,
  record,
  scriptedTransport,
  subscribe,
  withDispatcher
} from "./Harness.js"

const next = (received: Queue.Queue<Received>) =>
  Queue.take(received).pipe(Effect.timeoutOrElse({
    duration: Duration.seconds(5),
    orElse: () => Effect.fail(new Error("no attempt arrived"))
  }))

describe("Webhook secrets at rest and signing", () => {
  it.live("standardwebhooks verifies deliveries with the secrets the API returned, old and new (real clock)", () =>
    Effect.gen(function*() {
      const transport = yield* scriptedTransport(() => answer(200))
      yield* Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const created = yield* subscribe().pipe(as(principal))

        yield* record("agent.deleted", { id: "one" }).pipe(as(principal))
        const signed = yield* next(transport.received)
        new StandardWebhook(Redacted.value(created.secret)).verify(signed.request.body, signed.request.headers)

        const rotated = yield* Effect.flatMap(
          Webhooks,
          (w) => w.rotateSecret(created.id, new RotateWebhookSecret({ grace_period_seconds: 3600 }))
        ).pipe(as(principal))

        yield* record("agent.deleted", { id: "two" }).pipe(as(principal))
        const during = yield* next(transport.received)
        new StandardWebhook(Redacted.value(rotated.secret)).verify(during.request.body, during.request.headers)
        new StandardWebhook(Redacted.value(created.secret)).verify(during.request.body, during.request.headers)
        assert.throws(() =>
          new StandardWebhook("whsec_" + Buffer.alloc(32, 7).toString("base64")).verify(
            during.request.body,
            during.request.headers
          )
        )
      }).pipe(Effect.provide(withDispatcher(transport.layer, clockSettings)))
    }))
})
