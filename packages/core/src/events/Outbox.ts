/**
 * The event outbox port. `append` runs inside the caller's transaction, so an event exists exactly when
 * its change does. Reads serve the event log.
 */
import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { EventId, WorkspaceId } from "../shared/Ids.js"
import type { Event, EventType } from "./Event.js"

export interface EventFilter {
  readonly event?: EventType | undefined
}

export class Outbox extends Context.Service<Outbox, {
  readonly append: (workspaceId: WorkspaceId, event: Event) => Effect.Effect<void, PersistenceError>
  readonly findById: (workspaceId: WorkspaceId, id: EventId) => Effect.Effect<Option.Option<Event>, PersistenceError>
  /** Newest first (`occurred_at` desc, `id` desc). */
  readonly list: (
    workspaceId: WorkspaceId,
    filter: EventFilter,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<{ readonly items: ReadonlyArray<Event>; readonly total: number }, PersistenceError>
  /** Events recorded after `after` (by id, which is time-ordered), oldest first. */
  readonly listAfter: (
    workspaceId: WorkspaceId,
    after: EventId,
    filter: EventFilter,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Event>, PersistenceError>
  /**
   * Whether an event with this id may have been deleted by retention: it is not newer than the newest event
   * retention deleted in the workspace. An incremental read from such an id lists the events after it.
   */
  readonly wasPruned: (workspaceId: WorkspaceId, id: EventId) => Effect.Effect<boolean, PersistenceError>
}>()("@support-engine/core/Outbox") {}
