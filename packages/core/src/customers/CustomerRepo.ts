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
  /** Newest first; unfiltered total from the counter, filtered totals through the filter's index. */
  readonly list: (
    workspaceId: WorkspaceId,
    filter: CustomerFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<Customer>, PersistenceError>
}>()("@support-engine/core/CustomerRepo") {}
