/**
 * The dispatcher's metrics. `support_webhook_attempts_total{result}` counts recorded attempts by what became of the
 * delivery: `delivered`, `retry` (due again later), `failed` (its attempts are spent) and `gone` (the receiver
 * answered 410). The backlog gauges are read from the database when metrics are collected (`refreshBacklog`), so
 * every process reports the whole queue, whichever process holds its leases.
 */
import { DeliveryBacklog, type DeliveryOutcome } from "@support-engine/core"
import { DateTime, Effect, Metric, Option } from "effect"

/** `support_webhook_attempts_total{result}`. */
export const webhookAttemptsTotal = Metric.counter("support_webhook_attempts_total", {
  description: "Webhook delivery attempts recorded, by result: delivered, retry, failed, gone",
  incremental: true
})

/** `support_webhook_deliveries_pending`. */
export const webhookDeliveriesPending = Metric.gauge("support_webhook_deliveries_pending", {
  description: "Webhook deliveries waiting to be delivered (pending, claimed or not)"
})

/** `support_webhook_oldest_pending_seconds`: 0 when nothing waits. */
export const webhookOldestPendingSeconds = Metric.gauge("support_webhook_oldest_pending_seconds", {
  description: "Age in seconds of the oldest webhook delivery still waiting"
})

const RESULTS: Record<DeliveryOutcome["_tag"], string> = {
  Delivered: "delivered",
  Retry: "retry",
  Failed: "failed",
  Gone: "gone"
}

/** One labelled series per result, made once: building the labels on every attempt costs more than the update. */
const attemptsByResult = new Map(
  Object.entries(RESULTS).map(([tag, result]) => [tag, Metric.withAttributes(webhookAttemptsTotal, { result })])
)

/** Counts a recorded attempt by its outcome. */
export const countAttempt = (outcome: DeliveryOutcome): Effect.Effect<void> => {
  const series = attemptsByResult.get(outcome._tag)
  return series === undefined ? Effect.void : Metric.update(series, 1)
}

/** Every result's series at 0, so a failure rate is defined before the first attempt. */
export const registerAttemptResults: Effect.Effect<void> = Effect.forEach(
  attemptsByResult.values(),
  (series) => Metric.update(series, 0),
  { discard: true }
)

/**
 * Reads the backlog and sets both gauges. A failed read leaves them as they were (a scrape still answers) and
 * is logged.
 */
export const refreshBacklog: Effect.Effect<void, never, DeliveryBacklog> = Effect.gen(function*() {
  const backlog = yield* (yield* DeliveryBacklog).read
  const now = yield* DateTime.now
  yield* Metric.update(webhookDeliveriesPending, backlog.pending)
  const age = Option.match(backlog.oldest, {
    onNone: () => 0,
    onSome: (oldest) => Math.max(0, (DateTime.toEpochMillis(now) - DateTime.toEpochMillis(oldest)) / 1000)
  })
  yield* Metric.update(webhookOldestPendingSeconds, age)
}).pipe(
  Effect.catchTag("PersistenceError", (error) => Effect.logWarning("webhook backlog not read for metrics", error))
)
