/** Storage port for companies. Every method is scoped by workspace. */
import { Context, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { CompanyId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import type { Company } from "./Company.js"

export class CompanyRepo extends Context.Service<CompanyRepo, {
  readonly insert: (workspaceId: WorkspaceId, company: Company) => Effect.Effect<void, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: CompanyId
  ) => Effect.Effect<Option.Option<Company>, PersistenceError>
  readonly update: (workspaceId: WorkspaceId, company: Company) => Effect.Effect<void, PersistenceError>
  /** Deletes the company; its customers keep working with `company_id` null. False when absent. */
  readonly delete: (workspaceId: WorkspaceId, id: CompanyId) => Effect.Effect<boolean, PersistenceError>
  /** Newest first (`created_at` desc, `id` desc); `total` from the workspace counter. */
  readonly list: (workspaceId: WorkspaceId, slice: SliceRequest) => Effect.Effect<Slice<Company>, PersistenceError>
}>()("@support-engine/core/CompanyRepo") {}
