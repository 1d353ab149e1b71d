/** Companies on `effect/sql`. */
import { Company, CompanyId, CompanyRepo, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbTimestamp, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { mapSqlError } from "../shared/SqlErrors.js"

const CompanyRow = Schema.Struct({
  id: CompanyId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  avatar_url: Schema.NullOr(Schema.String),
  first_seen_at: DbTimestamp,
  last_seen_at: DbTimestamp,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const COUNTER = "companies"
const toCompany = (row: typeof CompanyRow.Type) => new Company(row, { disableChecks: true })

export const SqlCompanyRepoLive: Layer.Layer<CompanyRepo, never, SqlClient.SqlClient | Counters> = Layer.effect(
  CompanyRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters

    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: CompanyId }),
      Result: CompanyRow,
      execute: (r) => sql`SELECT * FROM companies WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, ...WindowFields }),
      Result: CompanyRow,
      execute: (r) =>
        sql`SELECT * FROM companies WHERE workspace_id = ${r.workspace_id} ${
          keyset(sql, r, { newest: "created_at", updated: "updated_at" })
        }`
    })

    return CompanyRepo.of({
      insert: (workspaceId, c) =>
        Effect.andThen(
          sql`INSERT INTO companies (id, workspace_id, name, domain, country, avatar_url, first_seen_at, last_seen_at,
            created_at, updated_at) VALUES (${c.id}, ${workspaceId}, ${c.name}, ${c.domain}, ${c.country},
            ${c.avatar_url}, ${ts(c.first_seen_at)}, ${ts(c.last_seen_at)}, ${ts(c.created_at)},
            ${ts(c.updated_at)})`.pipe(mapSqlError),
          counters.add(workspaceId, COUNTER, 1)
        ),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.map(toCompany)), mapSqlError),
      update: (workspaceId, c) =>
        sql`UPDATE companies SET name = ${c.name}, domain = ${c.domain}, country = ${c.country},
            avatar_url = ${c.avatar_url}, last_seen_at = ${ts(c.last_seen_at)}, updated_at = ${ts(c.updated_at)}
            WHERE workspace_id = ${workspaceId} AND id = ${c.id}`.pipe(Effect.asVoid, mapSqlError),
      delete: (workspaceId, id) =>
        sql`DELETE FROM companies WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          mapSqlError,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, COUNTER, -1), true)
          )
        ),
      list: (workspaceId, slice) =>
        Effect.all({
          items: page({ workspace_id: workspaceId, ...windowOf(slice) }).pipe(
            Effect.map((rows) => rows.map(toCompany)),
            mapSqlError
          ),
          total: totalOf(slice, counters.get(workspaceId, COUNTER))
        })
    })
  })
)
