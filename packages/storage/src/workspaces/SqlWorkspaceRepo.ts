/** Workspaces, users and API tokens on `effect/sql`. */
import {
  Ability,
  AgentId,
  ApiToken,
  ApiTokenId,
  ApiTokenRepo,
  Model,
  OrganizationId,
  User,
  UserId,
  UserRepo,
  Workspace,
  WorkspaceId,
  WorkspaceRepo
} from "@support-engine/core"
import { Effect, Layer, Option, Schema, Struct } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbJson, DbTimestamp, params, ts, tsOrNull } from "../shared/Columns.js"
import { mapSqlError } from "../shared/SqlErrors.js"

const WorkspaceRow = Schema.Struct({
  id: WorkspaceId,
  name: Schema.String,
  organization_id: OrganizationId,
  email_agent_id: Schema.NullOr(AgentId),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

export const SqlWorkspaceRepoLive: Layer.Layer<WorkspaceRepo, never, SqlClient.SqlClient> = Layer.effect(
  WorkspaceRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const findById = SqlSchema.findOneOption({
      Request: WorkspaceId,
      Result: WorkspaceRow,
      execute: (id) => sql`SELECT * FROM workspaces WHERE id = ${id}`
    })
    const list = SqlSchema.findAll({
      Request: Schema.Void,
      Result: WorkspaceRow,
      execute: () => sql`SELECT * FROM workspaces ORDER BY created_at, id`
    })
    return WorkspaceRepo.of({
      insert: (w) =>
        sql`INSERT INTO workspaces (id, name, organization_id, email_agent_id, created_at, updated_at) VALUES (
          ${w.id}, ${w.name}, ${w.organization_id}, ${w.email_agent_id}, ${ts(w.created_at)}, ${ts(w.updated_at)})`
          .pipe(Effect.asVoid, mapSqlError),
      findById: (id) =>
        findById(id).pipe(Effect.map(Option.map((row) => new Workspace(row, { disableChecks: true }))), mapSqlError),
      list: list(undefined).pipe(
        Effect.map((rows) => rows.map((row) => new Workspace(row, { disableChecks: true }))),
        mapSqlError
      ),
      // PostgreSQL: a table lock that conflicts with itself (and with inserts), held to the end of the transaction.
      // SQLite: transactions begin IMMEDIATE (SqliteClient.ts), so one already excludes every other writer.
      lockCreates: sql.onDialectOrElse({
        pg: () => sql`LOCK TABLE workspaces IN SHARE ROW EXCLUSIVE MODE`.pipe(Effect.asVoid, mapSqlError),
        orElse: () => Effect.void
      }),
      setEmailAgent: (id, agentId, at) =>
        sql`UPDATE workspaces SET email_agent_id = ${agentId}, updated_at = ${ts(at)} WHERE id = ${id}`.pipe(
          Effect.asVoid,
          mapSqlError
        )
    })
  })
)

const UserRow = Schema.Struct({
  id: UserId,
  workspace_id: WorkspaceId,
  name: Schema.String,
  email: Schema.String,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

export const SqlUserRepoLive: Layer.Layer<UserRepo, never, SqlClient.SqlClient> = Layer.effect(
  UserRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: UserId }),
      Result: UserRow,
      execute: (r) => sql`SELECT * FROM users WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })
    return UserRepo.of({
      insert: (u) =>
        sql`INSERT INTO users (id, workspace_id, name, email, created_at, updated_at) VALUES (
          ${u.id}, ${u.workspace_id}, ${u.name}, ${u.email}, ${ts(u.created_at)}, ${ts(u.updated_at)})`
          .pipe(Effect.asVoid, mapSqlError),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(
          Effect.map(Option.map((row) => new User(row, { disableChecks: true }))),
          mapSqlError
        )
    })
  })
)

const TokenRow = Schema.Struct({
  id: ApiTokenId,
  workspace_id: WorkspaceId,
  name: Schema.String,
  token_hash: Schema.String,
  organization_id: OrganizationId,
  abilities: DbJson(Schema.Array(Ability)),
  expires_at: Model.nullFirst(DbTimestamp),
  last_used_at: Model.nullFirst(DbTimestamp),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

export const SqlApiTokenRepoLive: Layer.Layer<ApiTokenRepo, never, SqlClient.SqlClient> = Layer.effect(
  ApiTokenRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const p = params(sql)
    const TokenRecord = TokenRow.mapFields(Struct.omit(["token_hash", "organization_id"]))
    const findById = SqlSchema.findOneOption({
      Request: ApiTokenId,
      Result: TokenRecord,
      execute: (id) =>
        sql`SELECT id, workspace_id, name, abilities, expires_at, last_used_at, created_at, updated_at
            FROM api_tokens WHERE id = ${id}`
    })
    // What authentication reads, on every authenticated request: not the name nor the creation and update times.
    // The workspace's organization as a scalar subquery: SQLite runs it several times faster than the same lookup
    // written as a join.
    const findCredential = SqlSchema.findOneOption({
      Request: ApiTokenId,
      Result: TokenRow.mapFields(Struct.omit(["name", "created_at", "updated_at"])),
      execute: (id) =>
        sql`SELECT t.id, t.workspace_id, t.token_hash, t.abilities, t.expires_at, t.last_used_at,
            (SELECT w.organization_id FROM workspaces w WHERE w.id = t.workspace_id) AS organization_id
            FROM api_tokens t WHERE t.id = ${id}`
    })
    const listByWorkspace = SqlSchema.findAll({
      Request: WorkspaceId,
      Result: TokenRecord,
      execute: (workspaceId) =>
        sql`SELECT id, workspace_id, name, abilities, expires_at, last_used_at, created_at, updated_at
            FROM api_tokens WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`
    })
    return ApiTokenRepo.of({
      listByWorkspace: (workspaceId) =>
        listByWorkspace(workspaceId).pipe(
          Effect.map((rows) => rows.map((row) => new ApiToken(row, { disableChecks: true }))),
          mapSqlError
        ),
      insert: (t, hash) =>
        sql`INSERT INTO api_tokens (id, workspace_id, name, token_hash, abilities, expires_at, last_used_at,
          created_at, updated_at) VALUES (${t.id}, ${t.workspace_id}, ${t.name}, ${hash}, ${p.json(t.abilities)},
          ${tsOrNull(t.expires_at)}, ${tsOrNull(t.last_used_at)}, ${ts(t.created_at)}, ${ts(t.updated_at)})`
          .pipe(Effect.asVoid, mapSqlError),
      findById: (id) =>
        findById(id).pipe(
          Effect.map(Option.map((row) => new ApiToken(row, { disableChecks: true }))),
          mapSqlError
        ),
      findCredential: (id) =>
        findCredential(id).pipe(
          Effect.map(Option.map((row) => ({
            id: row.id,
            workspaceId: row.workspace_id,
            organizationId: row.organization_id,
            abilities: row.abilities,
            expiresAt: row.expires_at,
            lastUsedAt: row.last_used_at,
            hash: row.token_hash
          }))),
          mapSqlError
        ),
      delete: (id) =>
        sql`DELETE FROM api_tokens WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          mapSqlError
        ),
      touch: (id, at) =>
        sql`UPDATE api_tokens SET last_used_at = ${ts(at)} WHERE id = ${id}`.pipe(Effect.asVoid, mapSqlError)
    })
  })
)
