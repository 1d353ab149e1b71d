/**
 * `LIMIT`/`OFFSET` counts (shared/Limit.ts): bound as expressions SQLite's planner does not read, so a statement
 * is not recompiled on every run; and no statement of storage binds a bare count.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { limit } from "../src/shared/Limit.js"
import * as SqliteClient from "../src/shared/SqliteClient.js"

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
      ? [join(dir, entry.name)]
      : []
  )

describe("Limit", () => {
  it.effect("the counts are cast parameters, and they limit and skip rows", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE n (x INTEGER PRIMARY KEY)`
      yield* sql`INSERT INTO n (x) VALUES (1), (2), (3), (4), (5)`
      const [text, params] = sql`SELECT x FROM n ORDER BY x ${limit(sql, 2, 1)}`.compile()
      assert.match(text, /LIMIT CAST\(\? AS INTEGER\) OFFSET CAST\(\? AS INTEGER\)$/)
      assert.deepStrictEqual(params, [2, 1])
      const page = yield* sql<{ x: number }>`SELECT x FROM n ORDER BY x ${limit(sql, 2, 1)}`
      assert.deepStrictEqual(page.map((r) => r.x), [2, 3])
      const first = yield* sql<{ x: number }>`SELECT x FROM n ORDER BY x DESC ${limit(sql, 1)}`
      assert.deepStrictEqual(first.map((r) => r.x), [5])
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it("no statement in storage binds a bare LIMIT or OFFSET count", () => {
    const bare = /\b(LIMIT|OFFSET) \$\{/
    const offenders = sourceFiles(join(import.meta.dirname, "..", "src"))
      .flatMap((file) =>
        readFileSync(file, "utf8").split("\n").flatMap((line, i) => bare.test(line) ? [`${file}:${i + 1}`] : [])
      )
    assert.deepStrictEqual(offenders, [])
  })
})
