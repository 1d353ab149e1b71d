/**
 * `serve`'s bootstrap (D42) when several servers start together on one empty database (docs/scaling.md): one
 * workspace and one token between them, on PostgreSQL (a table lock) and on one SQLite file (IMMEDIATE
 * transactions). Each engine below has its own connections, as separate processes would.
 */
import { assert, describe, it } from "@effect/vitest"
import { Workspaces } from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bootstrap } from "../src/Serve.js"
import { adminUrl, freshDatabase } from "./MultiProcessFixture.js"

const SERVERS = 4

/** Migrates with one engine, then runs the bootstrap on SERVERS engines at once; the created ones and the total. */
const race = (databaseUrl: string) =>
  Effect.gen(function*() {
    const count = Effect.flatMap(Workspaces, (w) => w.list).pipe(Effect.map((all) => all.length))
    yield* Effect.provide(count, supportEngineLayer({ databaseUrl, dispatcher: false }))
    const outcomes = yield* Effect.all(
      Array.from({ length: SERVERS }, () =>
        Effect.provide(bootstrap, supportEngineLayer({ databaseUrl, dispatcher: false }))),
      { concurrency: "unbounded" }
    )
    const workspaces = yield* Effect.provide(count, supportEngineLayer({ databaseUrl, dispatcher: false }))
    return { created: outcomes.filter(Option.isSome).length, workspaces }
  })

describe("bootstrap of servers started together (D42)", () => {
  it.live("one SQLite file: one workspace and one token between them", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "support-engine-bootstrap-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const result = yield* race(`file:${join(dir, "support.db")}`)
      assert.deepStrictEqual(result, { created: 1, workspaces: 1 })
    }))

  it.live.runIf(adminUrl !== undefined)(
    "one PostgreSQL database: one workspace and one token between them",
    () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase(adminUrl!)
        const result = yield* race(database.url)
        assert.deepStrictEqual(result, { created: 1, workspaces: 1 })
      })
  )
})
