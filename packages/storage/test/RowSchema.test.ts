/**
 * RowSchema.ts, the synchronous stand-in for `effect/sql`'s `SqlSchema`, on a real SQLite database: requests
 * are encoded before the statement runs, rows are decoded with the row schema, and a row the schema rejects
 * is a `SchemaError` (which the repositories turn into a PersistenceError), never a half-decoded value.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, DateTime, Effect, Exit, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { DbTimestamp } from "../src/shared/Columns.js"
import * as RowSchema from "../src/shared/RowSchema.js"
import * as SqliteClient from "../src/shared/SqliteClient.js"

const Row = Schema.Struct({ id: Schema.Int, body: Schema.String, at: DbTimestamp })

const withNotes = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, at TEXT NOT NULL)`
    yield* sql`INSERT INTO notes VALUES (1, 'first', '2026-11-21T10:00:00.000Z'), (2, 'second', 'not a time')`
    return yield* body(sql)
  }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" })))

/** The request schema encodes before the statement runs: the statement receives the string form. */
const ById = Schema.Struct({ id: Schema.NumberFromString })

const noteById = (sql: SqlClient.SqlClient) =>
  RowSchema.findOneOption({
    Request: ById,
    Result: Row,
    execute: (r) => sql`SELECT id, body, at FROM notes WHERE id = ${Number(r.id)}`
  })

describe("RowSchema", () => {
  it.effect("findOneOption decodes the first row, and is None when there is none", () =>
    withNotes((sql) =>
      Effect.gen(function*() {
        const byId = noteById(sql)
        const found = yield* byId({ id: 1 })
        assert.isTrue(Option.isSome(found))
        const row = Option.getOrThrow(found)
        assert.strictEqual(row.body, "first")
        assert.strictEqual(DateTime.toEpochMillis(row.at), Date.parse("2026-11-21T10:00:00.000Z"))
        assert.isTrue(Option.isNone(yield* byId({ id: 3 })))
      })
    ))

  it.effect("a row the schema rejects fails with a SchemaError naming the column", () =>
    withNotes((sql) =>
      Effect.gen(function*() {
        const byId = noteById(sql)
        const error = yield* Effect.flip(byId({ id: 2 }))
        assert.strictEqual(error._tag, "SchemaError")
        assert.include(error.message, "at")
        assert.include(error.message, "not a timestamp")
      })
    ))

  it.effect("findAll decodes every row; one bad row fails the whole read", () =>
    withNotes((sql) =>
      Effect.gen(function*() {
        const upTo = RowSchema.findAll({
          Request: Schema.Int,
          Result: Row,
          execute: (max) => sql`SELECT id, body, at FROM notes WHERE id <= ${max} ORDER BY id`
        })
        const rows = yield* upTo(1)
        assert.deepStrictEqual(rows.map((r) => r.body), ["first"])
        const exit = yield* Effect.exit(upTo(2))
        assert.isTrue(Exit.isFailure(exit))
      })
    ))

  it.effect("findOne fails with NoSuchElementError when there is no row", () =>
    withNotes((sql) =>
      Effect.gen(function*() {
        const count = RowSchema.findOne({
          Request: Schema.String,
          Result: Schema.Struct({ total: Schema.Int }),
          execute: (body) => sql`SELECT COUNT(*) AS total FROM notes WHERE body = ${body}`
        })
        assert.strictEqual((yield* count("first")).total, 1)
        const none = RowSchema.findOne({
          Request: Schema.String,
          Result: Row,
          execute: (body) => sql`SELECT id, body, at FROM notes WHERE body = ${body}`
        })
        const error = yield* Effect.flip(none("missing"))
        assert.isTrue(Cause.isNoSuchElementError(error))
      })
    ))

  it.effect("a request the request schema rejects fails before any statement runs", () =>
    withNotes((sql) =>
      Effect.gen(function*() {
        let ran = false
        const find = RowSchema.findAll({
          Request: Schema.Struct({ id: Schema.Int }),
          Result: Row,
          execute: (r) => Effect.andThen(Effect.sync(() => (ran = true)), sql`SELECT * FROM notes WHERE id = ${r.id}`)
        })
        const error = yield* Effect.flip(find({ id: 1.5 }))
        assert.strictEqual(error._tag, "SchemaError")
        assert.isFalse(ran)
      })
    ))
})
