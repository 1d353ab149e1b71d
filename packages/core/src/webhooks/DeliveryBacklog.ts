/**
 * Storage port of the webhook backlog as operators watch it: how many deliveries wait (pending, claimed or not) and
 * since when the oldest of them exists. One cheap read, made when metrics are collected.
 */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"

export interface Backlog {
  /** Deliveries not yet delivered, failed or cancelled. */
  readonly pending: number
  /** When the oldest of them was made; none when nothing waits. */
  readonly oldest: Option.Option<DateTime.Utc>
}

export class DeliveryBacklog extends Context.Service<DeliveryBacklog, {
  readonly read: Effect.Effect<Backlog, PersistenceError>
}>()("@support-engine/core/DeliveryBacklog") {}
