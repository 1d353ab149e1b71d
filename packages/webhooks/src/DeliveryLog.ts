/**
 * The delivery log (docs/webhooks.md "Logs"): one line per delivery attempt through Effect's
 * `Logger`, written once the attempt is recorded, so it says what became of the delivery. Info for a delivered
 * attempt, warning for any other. It names the webhook, the delivery, the event and the attempt, how the attempt
 * ended and what comes next; never the URL's query, the secret, a signature, a header or the body.
 */
import type { Completion, WebhookId } from "@support-engine/core"
import { DateTime, Effect } from "effect"

/** How an attempt ended on the wire: an answer (any status), or none (timeout, refused address, other error). */
export type AttemptEnd = "answered" | "timeout" | "refused" | "error"

/** A finished attempt as the dispatcher keeps it until it is recorded: what storage records, and how it ended. */
export interface FinishedAttempt extends Completion {
  readonly end: AttemptEnd
}

/**
 * What became of the delivery: `delivered`; `retry` (then `next_attempt_at`); `failed` (its attempts are spent);
 * `deactivated` (a 410, or the failure that deactivated its webhook); `not_recorded` (the claim was lost, or the
 * database refused the write: the delivery is due again when its lease ends).
 */
export type AttemptResultName = "delivered" | "retry" | "failed" | "deactivated" | "not_recorded"

const resultOf = (
  finished: FinishedAttempt,
  held: boolean,
  deactivated: ReadonlySet<WebhookId>
): AttemptResultName => {
  if (!held) return "not_recorded"
  switch (finished.outcome._tag) {
    case "Delivered":
      return "delivered"
    case "Retry":
      return "retry"
    case "Gone":
      return "deactivated"
    case "Failed":
      return deactivated.has(finished.claimed.webhookId) ? "deactivated" : "failed"
  }
}

/** The line of one attempt; `held` says whether it was recorded, `deactivated` which webhooks the batch deactivated. */
export const logAttempt = (
  finished: FinishedAttempt,
  held: boolean,
  deactivated: ReadonlySet<WebhookId>
): Effect.Effect<void> => {
  const { attempt, claimed, outcome } = finished
  const result = resultOf(finished, held, deactivated)
  const line = result === "delivered" ? Effect.logInfo("webhook delivery") : Effect.logWarning("webhook delivery")
  return line.pipe(
    Effect.annotateLogs({
      webhook_id: claimed.webhookId,
      delivery_id: claimed.id,
      workspace_id: claimed.workspaceId,
      event: claimed.event.event,
      event_id: claimed.event.id,
      attempt: claimed.attempts + 1,
      outcome: finished.end,
      status: attempt.responseStatus,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      result,
      next_attempt_at: result === "retry" && outcome._tag === "Retry" ? DateTime.formatIso(outcome.at) : null
    })
  )
}
