/**
 * Metrics of the event log. Retention's pruner adds the events it deletes to `support_events_pruned_total`; the
 * family exists (at 0) in every process, pruning or not, so a dashboard's query never reads a missing series.
 */
import type { Effect } from "effect"
import { Metric } from "effect"

/** `support_events_pruned_total`. */
export const eventsPrunedTotal = Metric.counter("support_events_pruned_total", {
  description: "Events deleted by retention",
  incremental: true
})

/** Adds `count` pruned events. */
export const countPrunedEvents = (count: number): Effect.Effect<void> => Metric.update(eventsPrunedTotal, count)

/** The series at 0 (an update registers it), for a process that has pruned nothing yet. */
export const registerEventMetrics: Effect.Effect<void> = Metric.update(eventsPrunedTotal, 0)
