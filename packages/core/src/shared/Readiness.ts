/**
 * Storage port of the readiness check: whether the database answers and its schema is at least the one this code
 * migrates to. A process whose database is unreachable, or migrated by an older release only, should receive no
 * traffic; liveness (`/health`) stays a separate question that touches no database.
 */
import { Context, type Effect } from "effect"

export class Readiness extends Context.Service<Readiness, {
  /** True when a query answered and every migration this code knows has run; never fails. */
  readonly check: Effect.Effect<boolean>
}>()("@support-engine/core/Readiness") {}
