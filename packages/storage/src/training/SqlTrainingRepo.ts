/** Training data, folders and discovered pages on `effect/sql`. */
import {
  AgentId,
  TrainingDataId,
  TrainingDataItem,
  TrainingFolder,
  TrainingFolderId,
  TrainingRepo,
  TrainingStatus,
  TrainingType,
  UrlPage,
  UrlPageId,
  UrlPageStatus,
  WorkspaceId
} from "@support-engine/core"
import { Array as Arr, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbBoolean, DbInt, DbTimestamp, params, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { mapSqlError } from "../shared/SqlErrors.js"

const ItemRow = Schema.Struct({
  id: TrainingDataId,
  workspace_id: WorkspaceId,
  type: TrainingType,
  source: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  slug: Schema.String,
  content: Schema.NullOr(Schema.String),
  question: Schema.NullOr(Schema.String),
  answer: Schema.NullOr(Schema.String),
  is_processed: DbBoolean,
  status: TrainingStatus,
  training_folder_id: Schema.NullOr(TrainingFolderId),
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
const AgentLink = Schema.Struct({ training_data_id: TrainingDataId, agent_id: AgentId })
const FolderRow = Schema.Struct({
  id: TrainingFolderId,
  name: Schema.String,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})
const PageRow = Schema.Struct({
  id: UrlPageId,
  training_data_id: TrainingDataId,
  url: Schema.String,
  status: UrlPageStatus,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const COUNTER = "training_data"
const COLUMNS = "id, workspace_id, type, source, title, description, slug, content, question, answer, is_processed, " +
  "status, training_folder_id, created_at, updated_at"

export const SqlTrainingRepoLive: Layer.Layer<TrainingRepo, never, SqlClient.SqlClient | Counters> = Layer.effect(
  TrainingRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const p = params(sql)
    const columns = sql.literal(COLUMNS)

    const agentLinks = SqlSchema.findAll({
      Request: Schema.Array(TrainingDataId),
      Result: AgentLink,
      execute: (ids) =>
        sql`SELECT training_data_id, agent_id FROM training_data_agents WHERE ${sql.in("training_data_id", ids)}
            ORDER BY position`
    })

    /** Rows to items, with their agents read in one query for the whole page. */
    const withAgents = (rows: ReadonlyArray<typeof ItemRow.Type>) =>
      rows.length === 0
        ? Effect.succeed([])
        : Effect.map(agentLinks(rows.map((r) => r.id)), (links) =>
          rows.map(({ workspace_id: _, ...row }) =>
            new TrainingDataItem({
              ...row,
              agent_ids: links.filter((l) =>
                l.training_data_id === row.id
              ).map((l) => l.agent_id)
            })
          ))

    const findById = SqlSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: TrainingDataId }),
      Result: ItemRow,
      execute: (r) => sql`SELECT ${columns} FROM training_data WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })

    const Filter = Schema.Struct({
      workspace_id: WorkspaceId,
      type: Schema.optional(Schema.String),
      status: Schema.optional(Schema.String)
    })
    const where = (r: typeof Filter.Encoded) =>
      sql.and([
        sql`workspace_id = ${r.workspace_id}`,
        ...(r.type === undefined ? [] : [sql`type = ${r.type}`]),
        ...(r.status === undefined ? [] : [sql`status = ${r.status}`])
      ])
    const page = SqlSchema.findAll({
      Request: Schema.Struct({ ...Filter.fields, ...WindowFields }),
      Result: ItemRow,
      execute: (r) =>
        sql`SELECT ${columns} FROM training_data WHERE ${where(r)}
            ${keyset(sql, r, { newest: "created_at", updated: "updated_at" })}`
    })
    const count = SqlSchema.findOne({
      Request: Filter,
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) => sql`SELECT COUNT(*) AS total FROM training_data WHERE ${where(r)}`
    })

    const findFolder = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: TrainingFolderId }),
      Result: FolderRow,
      execute: (r) =>
        sql`SELECT id, name, created_at, updated_at FROM training_folders
            WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })
    const listFolders = SqlSchema.findAll({
      Request: WorkspaceId,
      Result: FolderRow,
      execute: (workspaceId) =>
        sql`SELECT id, name, created_at, updated_at FROM training_folders WHERE workspace_id = ${workspaceId}
            ORDER BY created_at, id`
    })
    const pages = SqlSchema.findAll({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: TrainingDataId }),
      Result: PageRow,
      execute: (r) =>
        sql`SELECT id, training_data_id, url, status, created_at, updated_at FROM training_url_pages
            WHERE workspace_id = ${r.workspace_id} AND training_data_id = ${r.id} ORDER BY created_at, id`
    })

    const claim = SqlSchema.findAll({
      Request: Schema.Struct({ now: Schema.String, lease: Schema.String }),
      Result: ItemRow,
      execute: (r) => {
        const due = sql`SELECT id FROM training_data
          WHERE status = 'queued' OR (status = 'processing' AND lease_until < ${r.now})
          ORDER BY created_at, id LIMIT 1`
        // PostgreSQL: concurrent workers skip each other's row instead of waiting on it.
        const pick = sql.onDialectOrElse({ pg: () => sql`${due} FOR UPDATE SKIP LOCKED`, orElse: () => due })
        return sql`UPDATE training_data SET status = 'processing', is_processed = ${p.bool(false)},
          lease_until = ${r.lease}, updated_at = ${r.now} WHERE id = (${pick}) RETURNING ${columns}`
      }
    })

    const writeAgents = (item: TrainingDataItem) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM training_data_agents WHERE training_data_id = ${item.id}`
        const links = item.agent_ids.map((agent_id, position) => ({ training_data_id: item.id, agent_id, position }))
        if (Arr.isArrayNonEmpty(links)) yield* sql`INSERT INTO training_data_agents ${sql.insert(links)}`
      })

    return TrainingRepo.of({
      insert: (workspaceId, item, normalizedSource) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO training_data (id, workspace_id, type, source, normalized_source, title, description,
            slug, content, question, answer, is_processed, status, training_folder_id, created_at, updated_at) VALUES (
            ${item.id}, ${workspaceId}, ${item.type}, ${item.source}, ${normalizedSource}, ${item.title},
            ${item.description}, ${item.slug}, ${item.content}, ${item.question}, ${item.answer},
            ${p.bool(item.is_processed)}, ${item.status}, ${item.training_folder_id}, ${ts(item.created_at)},
            ${ts(item.updated_at)})`
          yield* writeAgents(item)
        }).pipe(mapSqlError, Effect.andThen(counters.add(workspaceId, COUNTER, 1))),
      update: (workspaceId, item) =>
        Effect.gen(function*() {
          yield* sql`UPDATE training_data SET title = ${item.title}, description = ${item.description},
            is_processed = ${p.bool(item.is_processed)}, status = ${item.status},
            lease_until = ${item.status === "processing" ? sql`lease_until` : null},
            updated_at = ${ts(item.updated_at)} WHERE workspace_id = ${workspaceId} AND id = ${item.id}`
          yield* writeAgents(item)
        }).pipe(mapSqlError),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(
          Effect.flatMap(withAgents),
          Effect.map((items) => Option.fromNullishOr(items[0])),
          mapSqlError
        ),
      delete: (workspaceId, id) =>
        sql`DELETE FROM training_data WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          mapSqlError,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, COUNTER, -1), true)
          )
        ),
      list: (workspaceId, filter, slice) => {
        const request = { workspace_id: workspaceId, type: filter.type, status: filter.status }
        return Effect.all({
          items: page({ ...request, ...windowOf(slice) }).pipe(Effect.flatMap(withAgents), mapSqlError),
          total: totalOf(
            slice,
            filter.type === undefined && filter.status === undefined
              ? counters.get(workspaceId, COUNTER)
              : count(request).pipe(Effect.map((r) => r.total), mapSqlError)
          )
        })
      },
      insertFolder: (workspaceId, f) =>
        sql`INSERT INTO training_folders (id, workspace_id, name, created_at, updated_at) VALUES (${f.id},
          ${workspaceId}, ${f.name}, ${ts(f.created_at)}, ${ts(f.updated_at)})`.pipe(Effect.asVoid, mapSqlError),
      findFolder: (workspaceId, id) =>
        findFolder({ workspace_id: workspaceId, id }).pipe(
          Effect.map(Option.map((row) => new TrainingFolder(row, { disableChecks: true }))),
          mapSqlError
        ),
      listFolders: (workspaceId) =>
        listFolders(workspaceId).pipe(
          Effect.map((rows) => rows.map((row) => new TrainingFolder(row, { disableChecks: true }))),
          mapSqlError
        ),
      replacePages: (workspaceId, itemId, entries) =>
        Effect.gen(function*() {
          yield* sql`DELETE FROM training_url_pages WHERE workspace_id = ${workspaceId}
            AND training_data_id = ${itemId}`
          const rows = entries.map(({ normalized, page }) => ({
            id: page.id,
            workspace_id: workspaceId,
            training_data_id: itemId,
            url: page.url,
            normalized_url: normalized,
            status: page.status,
            created_at: ts(page.created_at),
            updated_at: ts(page.updated_at)
          }))
          if (Arr.isArrayNonEmpty(rows)) yield* sql`INSERT INTO training_url_pages ${sql.insert(rows)}`
        }).pipe(mapSqlError),
      pages: (workspaceId, id) =>
        pages({ workspace_id: workspaceId, id }).pipe(
          Effect.map((rows) => rows.map((row) => new UrlPage(row, { disableChecks: true }))),
          mapSqlError
        ),
      urlExists: (workspaceId, normalized) =>
        sql<{ readonly found: unknown }>`SELECT 1 AS found WHERE EXISTS (SELECT 1 FROM training_data
            WHERE workspace_id = ${workspaceId} AND normalized_source = ${normalized} AND type = 'url')
          OR EXISTS (SELECT 1 FROM training_url_pages WHERE workspace_id = ${workspaceId}
            AND normalized_url = ${normalized})`.pipe(Effect.map((rows) => rows.length > 0), mapSqlError),
      claimNext: (now, leaseUntil) =>
        claim({ now: ts(now), lease: ts(leaseUntil) }).pipe(
          Effect.flatMap((rows) =>
            Effect.map(withAgents(rows), (items) =>
              Option.fromNullishOr(items[0]).pipe(
                Option.map((item) => ({ workspaceId: rows[0]!.workspace_id, item }))
              ))
          ),
          mapSqlError
        )
    })
  })
)
