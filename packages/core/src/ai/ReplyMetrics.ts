/**
 * The AI reply loop's metric: one count per job that ended in a reply or a handoff, labelled `outcome` (`answered`,
 * or the handoff's reason). Skipped jobs (a person took the conversation) and lost claims are not counted.
 */
import { Effect, Metric } from "effect"
import { HandoffReason } from "./Answer.js"
import type { ReplyOutcome } from "./ReplyJobs.js"

/** `support_ai_replies_total{outcome}`. */
export const aiRepliesTotal = Metric.counter("support_ai_replies_total", {
  description: "AI reply jobs finished, by outcome: answered, or the reason the conversation was handed off",
  incremental: true
})

/** Counts a job's outcome; call it once the outcome's transaction has committed, so a rolled back job is not counted. */
export const countReply = (outcome: ReplyOutcome | null): Effect.Effect<void> => {
  if (outcome === null || outcome._tag === "Skipped") return Effect.void
  const label = outcome._tag === "Replied" ? "answered" : outcome.reason
  return Metric.update(Metric.withAttributes(aiRepliesTotal, { outcome: label }), 1)
}

/** Every outcome's series at 0, so a rate over them is defined before the first job of each kind. */
export const registerReplyOutcomes: Effect.Effect<void> = Effect.forEach(
  ["answered", ...HandoffReason.literals],
  (outcome) => Metric.update(Metric.withAttributes(aiRepliesTotal, { outcome }), 0),
  { discard: true }
)
