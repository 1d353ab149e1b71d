/** Storage port for customers. Every method is scoped by workspace. */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { CompanyId, CustomerId, WorkspaceId } from "../shared/Ids.js"
import type { ForeignKeyViolation, Slice, SliceRequest, UniqueViolation } from "../shared/Repository.js"
import type { Customer } from "./Customer.js"

export interface CustomerFilter {
  readonly email?: string | undefined
  readonly company_id?: CompanyId | undefined
  /** Search words (`searchTerms`): matches only, best first. */
  readonly terms?: ReadonlyArray<string> | undefined
}

/** What an erasure removed or redacted, counted by the storage that did it. */
export interface ErasedCounts {
  readonly conversations: number
  readonly messages: number
  readonly events_redacted: number
}

export class CustomerRepo extends Context.Service<CustomerRepo, {
  /**
   * `UniqueViolation` `customers.email`: the workspace already has that email; `ForeignKeyViolation`
   * `customers.company_id`: the company was deleted meanwhile. The service checks both first; these are the backstops.
   */
  readonly insert: (
    workspaceId: WorkspaceId,
    customer: Customer
  ) => Effect.Effect<void, PersistenceError | UniqueViolation | ForeignKeyViolation>
  readonly update: (
    workspaceId: WorkspaceId,
    customer: Customer
  ) => Effect.Effect<void, PersistenceError | UniqueViolation | ForeignKeyViolation>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: CustomerId
  ) => Effect.Effect<Option.Option<Customer>, PersistenceError>
  /** The customer with this email (case-insensitive), if any. */
  readonly findByEmail: (
    workspaceId: WorkspaceId,
    email: string
  ) => Effect.Effect<Option.Option<Customer>, PersistenceError>
  /** Records that the customer was seen (a message from them): sets `last_seen_at` only. */
  readonly markSeen: (
    workspaceId: WorkspaceId,
    id: CustomerId,
    at: DateTime.Utc
  ) => Effect.Effect<void, PersistenceError>
  readonly delete: (workspaceId: WorkspaceId, id: CustomerId) => Effect.Effect<boolean, PersistenceError>
  /**
   * Erases the customer in the caller's transaction: the customer, their conversations and messages with
   * everything keyed to them (reply jobs, search documents, stored idempotent answers naming them); the events
   * whose data names the customer or one of their conversations keep their envelope with data
   * `{"redacted": true}`, and those events' deliveries not yet made or sent are cancelled. None when the customer
   * does not exist. Safe against concurrent writes to their rows: it holds their conversations, then the
   * customer, before reading what to erase.
   */
  readonly erase: (
    workspaceId: WorkspaceId,
    id: CustomerId,
    at: DateTime.Utc
  ) => Effect.Effect<Option.Option<ErasedCounts>, PersistenceError>
  /** Newest first; unfiltered total from the counter, filtered totals through the filter's index. */
  readonly list: (
    workspaceId: WorkspaceId,
    filter: CustomerFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Customer>, PersistenceError>
}>()("@support-engine/core/CustomerRepo") {}
