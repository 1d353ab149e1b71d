/** Workspaces and their users: managed through the engine and the CLI, not the `/v1` API. */
import { Schema } from "effect"
import { AgentId, OrganizationId, UserId, WorkspaceId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString } from "../shared/Validation.js"

export class Workspace extends Model.Class<Workspace>("Workspace")({
  id: WorkspaceId,
  name: BoundedString(255),
  organization_id: OrganizationId,
  email_agent_id: Schema.NullOr(AgentId),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class CreateWorkspace extends Model.Class<CreateWorkspace>("CreateWorkspace")({
  name: BoundedString(255).check(Schema.isMinLength(1)),
  organization_id: Schema.optionalKey(OrganizationId)
}) {}

export class User extends Model.Class<User>("User")({
  id: UserId,
  workspace_id: WorkspaceId,
  name: BoundedString(255),
  email: BoundedString(255),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class CreateUser extends Model.Class<CreateUser>("CreateUser")({
  workspace_id: WorkspaceId,
  name: BoundedString(255).check(Schema.isMinLength(1)),
  email: BoundedString(255).check(Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { message: "must be an email address" }))
}) {}
