/**
 * A throwaway PostgreSQL database for one test run, on the server named by SUPPORT_TEST_PG_URL
 * (CI sets it to the local server). Without the variable the PostgreSQL suites are skipped.
 */
import { PgClient } from "@effect/sql-pg"
import { afterAll, beforeAll } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { StorageLive } from "../src/Storage.js"
import type { Adapter } from "./conformance/Harness.js"

export const adminUrl: string | undefined = process.env["SUPPORT_TEST_PG_URL"]

const onAdmin = <A, E>(run: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, run).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl!), maxConnections: 1 })),
      Effect.scoped
    )
  )

/** Creates `support_engine_test_<random>` and returns its URL. */
export const createDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const name = `support_engine_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  await onAdmin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  const url = new URL(adminUrl!)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => onAdmin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}

/** Inside a `describe`: the adapter of a database of its own, created before its tests and dropped after them. */
export const freshDatabase = (): Adapter => {
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined
  beforeAll(async () => {
    database = await createDatabase()
  })
  afterAll(async () => {
    await database?.drop()
  })
  return { name: "postgres", storage: () => StorageLive(database!.url) }
}
