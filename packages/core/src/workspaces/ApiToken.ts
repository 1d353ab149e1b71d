/** Workspace API tokens. Only a SHA-256 hash of the plain value is stored. */
import { Schema } from "effect"
import { ApiTokenId, WorkspaceId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { Ability } from "../shared/Principal.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { BoundedString } from "../shared/Validation.js"

export class ApiToken extends Model.Class<ApiToken>("ApiToken")({
  id: ApiTokenId,
  workspace_id: WorkspaceId,
  name: BoundedString(255),
  abilities: Schema.Array(Ability),
  expires_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

/** The calling token as `GET /v1/token` shows it: its record without the hash or the update time. */
export class TokenInfo extends Model.Class<TokenInfo>("TokenInfo")({
  id: ApiTokenId,
  workspace_id: WorkspaceId,
  name: Schema.String,
  abilities: Schema.Array(Ability),
  expires_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
  created_at: Timestamp
}) {}

export class CreateApiToken extends Model.Class<CreateApiToken>("CreateApiToken")({
  workspace_id: WorkspaceId,
  name: BoundedString(255).check(Schema.isMinLength(1)),
  abilities: Schema.NonEmptyArray(Ability),
  expires_at: NullableTimestamp.pipe(Model.withDefault(() => null))
}) {}
