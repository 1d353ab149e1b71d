/**
 * The unit-of-work port. Multi-step writes and their outbox rows run inside one `withTransaction`,
 * so a failure in any step leaves no partial rows and no event. Storage adapters implement it.
 */
import { Context, type Effect } from "effect"
import type { PersistenceError } from "./Errors.js"

export class Transactor extends Context.Tag("@support-engine/core/Transactor")<Transactor, {
  readonly withTransaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | PersistenceError, R>
}>() {}
