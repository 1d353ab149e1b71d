/** Workspaces and their users (D8): managed through the engine and the CLI, not the `/v1` API. */
import { Schema } from "effect"
import { AgentId, OrganizationId, UserId, WorkspaceId } from "./Ids.js"
import { Timestamp } from "./Timestamp.js"
import { BoundedString } from "./Validation.js"

export class Workspace extends Schema.Class<Workspace>("Workspace")({
  id: WorkspaceId,
  name: BoundedString(255),
  organization_id: OrganizationId,
  email_agent_id: Schema.NullOr(AgentId),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class CreateWorkspace extends Schema.Class<CreateWorkspace>("CreateWorkspace")({
  name: BoundedString(255).pipe(Schema.minLength(1)),
  organization_id: Schema.optional(OrganizationId)
}) {}

export class User extends Schema.Class<User>("User")({
  id: UserId,
  workspace_id: WorkspaceId,
  name: BoundedString(255),
  email: BoundedString(255),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class CreateUser extends Schema.Class<CreateUser>("CreateUser")({
  workspace_id: WorkspaceId,
  name: BoundedString(255).pipe(Schema.minLength(1)),
  email: BoundedString(255).pipe(Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an email address" }))
}) {}
