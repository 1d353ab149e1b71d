/** Customers on `effect/sql`. */
import { CompanyId, Customer, CustomerId, CustomerRepo, normalizeEmail, WorkspaceId } from "@support-engine/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { DbInt, DbTimestamp, ts } from "../shared/Columns.js"
import { Counters } from "../shared/Counters.js"
import { keyset, totalOf, WindowFields, windowOf } from "../shared/Keyset.js"
import { limit } from "../shared/Limit.js"
import { mapSqlError, orConstraint } from "../shared/SqlErrors.js"
import { matchExpression } from "../shared/TextSearch.js"
import { makeErasure } from "./SqlCustomerErasure.js"

const CustomerRow = Schema.Struct({
  id: CustomerId,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  locale: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  company_id: Schema.NullOr(CompanyId),
  avatar_url: Schema.NullOr(Schema.String),
  first_seen_at: DbTimestamp,
  last_seen_at: DbTimestamp,
  created_at: DbTimestamp,
  updated_at: DbTimestamp
})

const COUNTER = "customers"
const ORDER = { newest: "created_at", updated: "updated_at" }
const toCustomer = (row: typeof CustomerRow.Type) => new Customer(row, { disableChecks: true })
// The keys core's Customers maps to 422s: a duplicate email, a company deleted by a concurrent transaction.
const keys = { unique: "customers.email", foreign: "customers.company_id" }
const COLUMNS = "id, first_name, last_name, email, phone, locale, country, company_id, avatar_url, first_seen_at, " +
  "last_seen_at, created_at, updated_at"

export const SqlCustomerRepoLive: Layer.Layer<CustomerRepo, never, SqlClient.SqlClient | Counters> = Layer.effect(
  CustomerRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* Counters
    const columns = sql.literal(COLUMNS)
    const prefixedColumns = sql.literal(COLUMNS.split(", ").map((column) => `c.${column}`).join(", "))

    const findById = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, id: CustomerId }),
      Result: CustomerRow,
      execute: (r) => sql`SELECT ${columns} FROM customers WHERE workspace_id = ${r.workspace_id} AND id = ${r.id}`
    })

    const findByEmail = SqlSchema.findOneOption({
      Request: Schema.Struct({ workspace_id: WorkspaceId, email: Schema.String }),
      Result: CustomerRow,
      execute: (r) =>
        sql`SELECT ${columns} FROM customers WHERE workspace_id = ${r.workspace_id} AND email_normalized = ${r.email}`
    })

    const Filter = Schema.Struct({
      workspace_id: WorkspaceId,
      email: Schema.optional(Schema.String),
      company_id: Schema.optional(CompanyId)
    })
    const where = (r: typeof Filter.Encoded) =>
      sql.and([
        sql`workspace_id = ${r.workspace_id}`,
        ...(r.email === undefined ? [] : [sql`email_normalized = ${r.email}`]),
        ...(r.company_id === undefined ? [] : [sql`company_id = ${r.company_id}`])
      ])

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ ...Filter.fields, ...WindowFields }),
      Result: CustomerRow,
      execute: (r) => sql`SELECT ${columns} FROM customers WHERE ${where(r)} ${keyset(sql, r, ORDER)}`
    })

    // Search: the matches of the customer index (migration 0015), best first, then newest first. PostgreSQL folds
    // the query's diacritics as it folds the documents (migration 0033); SQLite's tokenizer folds both.
    const searchWhere = (r: typeof SearchRequest.Encoded) =>
      sql.and([
        sql.onDialectOrElse({
          pg: () => sql`s.document @@ to_tsquery('simple', support_search_fold(${r.match}))`,
          orElse: () => sql`customer_text_search MATCH ${r.match}`
        }),
        sql`c.workspace_id = ${r.workspace_id}`,
        ...(r.email === undefined ? [] : [sql`c.email_normalized = ${r.email}`]),
        ...(r.company_id === undefined ? [] : [sql`c.company_id = ${r.company_id}`])
      ])
    const searchFrom = sql.onDialectOrElse({
      pg: () => sql`customer_text_search s JOIN customers c ON c.id = s.id`,
      orElse: () =>
        sql`customer_text_search JOIN customer_text_search_keys k ON k.search_rowid = customer_text_search.rowid
            JOIN customers c ON c.id = k.id`
    })
    const SearchRequest = Schema.Struct({ ...Filter.fields, match: Schema.String })
    const searchPage = SqlSchema.findAll({
      Request: Schema.Struct({ ...SearchRequest.fields, limit: Schema.Int, offset: Schema.Int }),
      Result: CustomerRow,
      execute: (r) =>
        sql`SELECT ${prefixedColumns} FROM ${searchFrom} WHERE ${searchWhere(r)}
            ORDER BY ${
          sql.onDialectOrElse({
            pg: () => sql`ts_rank(s.document, to_tsquery('simple', support_search_fold(${r.match}))) DESC`,
            orElse: () => sql`bm25(customer_text_search)`
          })
        }, c.created_at DESC, c.id DESC ${limit(sql, r.limit, r.offset)}`
    })
    const searchCount = SqlSchema.findOne({
      Request: SearchRequest,
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) => sql`SELECT COUNT(*) AS total FROM ${searchFrom} WHERE ${searchWhere(r)}`
    })

    const count = SqlSchema.findOne({
      Request: Filter,
      Result: Schema.Struct({ total: DbInt }),
      execute: (r) => sql`SELECT COUNT(*) AS total FROM customers WHERE ${where(r)}`
    })

    const { erase } = makeErasure(sql, counters)

    const email = (c: Customer) => (c.email === null ? null : normalizeEmail(c.email))

    return CustomerRepo.of({
      insert: (workspaceId, c) =>
        Effect.andThen(
          sql`INSERT INTO customers (id, workspace_id, first_name, last_name, email, email_normalized, phone, locale,
            country, company_id, avatar_url, first_seen_at, last_seen_at, created_at, updated_at) VALUES (${c.id},
            ${workspaceId}, ${c.first_name}, ${c.last_name}, ${c.email}, ${email(c)}, ${c.phone}, ${c.locale},
            ${c.country}, ${c.company_id}, ${c.avatar_url}, ${ts(c.first_seen_at)}, ${ts(c.last_seen_at)},
            ${ts(c.created_at)}, ${ts(c.updated_at)})`.pipe(
            orConstraint(keys)
          ),
          counters.add(workspaceId, COUNTER, 1)
        ),
      update: (workspaceId, c) =>
        sql`UPDATE customers SET first_name = ${c.first_name}, last_name = ${c.last_name}, email = ${c.email},
            email_normalized = ${email(c)}, phone = ${c.phone}, locale = ${c.locale}, country = ${c.country},
            company_id = ${c.company_id}, avatar_url = ${c.avatar_url}, updated_at = ${ts(c.updated_at)}
            WHERE workspace_id = ${workspaceId} AND id = ${c.id}`.pipe(
          Effect.asVoid,
          orConstraint(keys)
        ),
      findById: (workspaceId, id) =>
        findById({ workspace_id: workspaceId, id }).pipe(Effect.map(Option.map(toCustomer)), mapSqlError),
      findByEmail: (workspaceId, address) =>
        findByEmail({ workspace_id: workspaceId, email: normalizeEmail(address) }).pipe(
          Effect.map(Option.map(toCustomer)),
          mapSqlError
        ),
      markSeen: (workspaceId, id, at) =>
        sql`UPDATE customers SET last_seen_at = ${ts(at)} WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.asVoid,
          mapSqlError
        ),
      delete: (workspaceId, id) =>
        sql`DELETE FROM customers WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
          mapSqlError,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.succeed(false) : Effect.as(counters.add(workspaceId, COUNTER, -1), true)
          )
        ),
      erase,
      list: (workspaceId, filter, slice) => {
        const request = { workspace_id: workspaceId, email: filter.email, company_id: filter.company_id }
        if (filter.terms !== undefined) {
          const search = { ...request, match: matchExpression(sql, filter.terms) }
          return Effect.all({
            items: searchPage({ ...search, limit: slice.limit, offset: slice.offset }).pipe(
              Effect.map((rows) => rows.map(toCustomer)),
              mapSqlError
            ),
            total: searchCount(search).pipe(Effect.map((r) => r.total), mapSqlError)
          })
        }
        const filtered = filter.email !== undefined || filter.company_id !== undefined
        return Effect.all({
          items: page({ ...request, ...windowOf(slice) }).pipe(
            Effect.map((rows) => rows.map(toCustomer)),
            mapSqlError
          ),
          total: totalOf(
            slice,
            filtered ? count(request).pipe(Effect.map((r) => r.total), mapSqlError) : counters.get(workspaceId, COUNTER)
          )
        })
      }
    })
  })
)
