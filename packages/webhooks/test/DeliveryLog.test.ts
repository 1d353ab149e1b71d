/**
 * The delivery log (issue 16 item 7): one line per attempt through Effect's `Logger`, once the attempt is recorded,
 * with the webhook, delivery, workspace, event, attempt number, how it ended and what comes next; info when
 * delivered, warning otherwise; never the secret, a signature or the body. A scripted transport under TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, DateTime, Duration, Effect, Layer, Logger, Queue, Redacted, References } from "effect"
import { TestClock } from "effect/testing"
import { TransportError } from "../src/Transport.js"
import {
  answer,
  as,
  clockSettings,
  eventually,
  makeWorkspace,
  record,
  scriptedTransport,
  subscribe,
  withDispatcher
} from "./Harness.js"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
  readonly cause: string
}

const captured = () => {
  const lines: Array<Line> = []
  // Replaces the default logger (the annotations are the fiber's, not an argument of the logger on Effect 4).
  const layer = Logger.layer([
    Logger.make(({ cause, fiber, logLevel, message }) => {
      lines.push({
        level: logLevel.toUpperCase(),
        message: Array.isArray(message) && message.length === 1 ? message[0] : message,
        annotations: { ...fiber.getRef(References.CurrentLogAnnotations) },
        cause: cause.reasons.length === 0 ? "" : Cause.pretty(cause)
      })
    })
  ])
  return { lines, layer } as const
}

describe("Delivery log (issue 16 item 7)", () => {
  it.effect("one line per attempt: retry (warning, next attempt), delivered (info), failed and deactivated", () =>
    Effect.gen(function*() {
      const logs = captured()
      const deliveryLines = () => logs.lines.filter((l) => l.message === "webhook delivery")
      // `/bad`: a 503, then no answer in time; `/ok`: 200.
      const transport = yield* scriptedTransport((_, request) => {
        if (request.url.endsWith("/ok")) return answer(200)
        return logs.lines.some((l) => l.annotations.result === "retry")
          ? Effect.fail(new TransportError({ reason: "timeout", message: "No answer within 10s." }))
          : answer(503)
      })
      const settings = { ...clockSettings, maxAttempts: 2, deactivateAfter: 1 }
      yield* Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const bad = yield* subscribe(["*"], "https://hooks.example.com/bad").pipe(as(principal))
        const ok = yield* subscribe(["*"], "https://hooks.example.com/ok").pipe(as(principal))
        const event = yield* record("agent.deleted", { id: "secret-body-value" }).pipe(as(principal))
        yield* eventually(Effect.sync(() => deliveryLines().length === 2), "two attempt lines")

        const lineOf = (webhookId: string) => deliveryLines().filter((l) => l.annotations.webhook_id === webhookId)
        const [delivered] = lineOf(ok.id)
        assert.strictEqual(delivered!.level, "INFO")
        const { delivery_id, duration_ms, ...fields } = delivered!.annotations
        assert.isString(delivery_id)
        assert.isNumber(duration_ms)
        assert.deepStrictEqual(fields, {
          webhook_id: ok.id,
          workspace_id: workspace.id,
          event: "agent.deleted",
          event_id: event.id,
          attempt: 1,
          outcome: "answered",
          status: 200,
          error: null,
          result: "delivered",
          next_attempt_at: null
        })

        const [retry] = lineOf(bad.id)
        assert.strictEqual(retry!.level, "WARN")
        assert.deepInclude(retry!.annotations, {
          attempt: 1,
          outcome: "answered",
          status: 503,
          error: null,
          result: "retry",
          next_attempt_at: DateTime.formatIso(DateTime.add(event.occurred_at, { minutes: 1 }))
        })

        // The second and last attempt times out: the delivery fails, and with deactivateAfter 1 the webhook goes.
        yield* TestClock.adjust(Duration.minutes(1))
        yield* eventually(Effect.sync(() => lineOf(bad.id).length === 2), "the second attempt's line")
        const last = lineOf(bad.id)[1]!
        assert.strictEqual(last.level, "WARN")
        assert.deepInclude(last.annotations, {
          delivery_id: retry!.annotations.delivery_id,
          attempt: 2,
          outcome: "timeout",
          status: null,
          error: "timeout: No answer within 10s.",
          result: "deactivated",
          next_attempt_at: null
        })

        // The deactivation's webhook.deactivated event goes to `ok`, which subscribes to everything (D52).
        yield* eventually(Effect.sync(() => lineOf(ok.id).length === 2), "the webhook.deactivated delivery's line")
        assert.deepInclude(lineOf(ok.id)[1]!.annotations, { event: "webhook.deactivated", result: "delivered" })
        const sent = yield* Queue.clear(transport.received)
        assert.strictEqual(sent.length, 4)
        // Nothing in the log that could forge or read a delivery.
        const written = JSON.stringify(logs.lines)
        for (const { request } of sent) {
          assert.notInclude(written, request.headers["X-Service-Signature"]!)
          assert.notInclude(written, request.headers["webhook-signature"]!.slice("v1,".length))
        }
        for (const secret of [Redacted.value(bad.secret), Redacted.value(ok.secret)]) {
          assert.notInclude(written, secret)
          assert.notInclude(written, secret.slice("whsec_".length))
        }
        assert.notInclude(written, "secret-body-value")
      }).pipe(Effect.provide(withDispatcher(transport.layer, settings).pipe(Layer.provide(logs.layer))))
    }))
})
