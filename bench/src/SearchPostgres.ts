/**
 * Search at scale on PostgreSQL: the same selective search as Search.ts (`q=zanzib quok` on customers, five
 * matches) on a database of its own per size, on the server `SUPPORT_BENCH_PG_URL` (or `SUPPORT_TEST_PG_URL`) names.
 *
 * The engine creates the schema (its migrations, with the `tsvector` table, its GIN index and the triggers that keep
 * it), a workspace and a token. Customers are then inserted by one `INSERT ... SELECT generate_series(...)`, so the
 * triggers index every row as the engine's own writes would, and the five needles after them; then `VACUUM ANALYZE`,
 * as autovacuum would. The database is dropped at the end.
 */
import { PgClient } from "@effect/sql-pg"
import { createSupportEngine } from "@support-engine/engine"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { performance } from "node:perf_hooks"
import { percentile } from "./Load.js"
import type { SearchLatency } from "./Search.js"

export const benchPgUrl: string | undefined = process.env["SUPPORT_BENCH_PG_URL"] ?? process.env["SUPPORT_TEST_PG_URL"]

// PostgreSQL keeps webhook secrets encrypted and will not start without a key (docs/configuration.md). Set when this
// module loads, before any engine runs: Effect's default configuration provider copies the environment the first
// time it is read, so a key set later, once the run's first (SQLite) engine has started, would not be seen.
if (benchPgUrl !== undefined) process.env["SUPPORT_SECRET_KEY"] ??= randomBytes(32).toString("base64")

const onServer = <A>(url: string, run: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(PgClient.PgClient, run).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

const databaseUrl = (server: string, name: string) => {
  const url = new URL(server)
  url.pathname = `/${name}`
  return url.toString()
}

const NEEDLES = 5

/** Seeds `customers` rows into a new database and measures `count` searches after as many warm-up calls. */
export const searchLatencyPostgres = async (
  server: string,
  customers: number,
  count: number,
  progress: (line: string) => void
): Promise<SearchLatency & { readonly seedSeconds: number }> => {
  const name = `support_engine_bench_search_${process.pid}_${customers}`
  await onServer(server, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  await onServer(server, (sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  const url = databaseUrl(server, name)
  try {
    const setup = createSupportEngine({ databaseUrl: url, dispatcher: false, trainingWorker: false })
    let workspaceId: string
    let token: string
    try {
      const workspace = await setup.workspaces.create({ name: "Bench" })
      const issued = await setup.tokens.create({
        workspace_id: workspace.id,
        name: "bench",
        abilities: ["external-api:write"]
      })
      workspaceId = workspace.id
      token = issued.token
    } finally {
      await setup.dispose()
    }

    progress(`search (PostgreSQL): insert ${customers.toLocaleString("en")} customers, indexed by the triggers`)
    const started = performance.now()
    await onServer(url, (sql) =>
      Effect.gen(function*() {
        // One second apart from 2024-01-01, as Seed.ts does on SQLite; ids are random UUIDs.
        yield* sql.unsafe(
          `INSERT INTO customers (id, workspace_id, first_name, last_name, email, email_normalized, phone, locale,
             country, company_id, avatar_url, first_seen_at, last_seen_at, created_at, updated_at)
           SELECT gen_random_uuid(), $1, 'First' || i, 'Last' || i, 'customer' || i || '@bench.example',
             'customer' || i || '@bench.example', NULL, 'en', 'NL', NULL, NULL, t, t, t, t
           FROM generate_series(0, $2 - 1) AS i,
             LATERAL (SELECT TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL '1 second' AS t) AS at`,
          [workspaceId, customers]
        )
        yield* sql.unsafe(
          `INSERT INTO customers (id, workspace_id, first_name, last_name, email, email_normalized, phone, locale,
             country, company_id, avatar_url, first_seen_at, last_seen_at, created_at, updated_at)
           SELECT gen_random_uuid(), $1, 'Zanzibar', 'Quokka', 'needle' || i || '@bench.example',
             'needle' || i || '@bench.example', NULL, 'en', 'NL', NULL, NULL, t, t, t, t
           FROM generate_series(0, $2 - 1) AS i,
             LATERAL (SELECT TIMESTAMPTZ '2030-01-01 00:00:00+00' + i * INTERVAL '1 second' AS t) AS at`,
          [workspaceId, NEEDLES]
        )
        yield* sql.unsafe(
          `INSERT INTO workspace_counters (workspace_id, name, value) VALUES ($1, 'customers', $2)
           ON CONFLICT (workspace_id, name) DO UPDATE SET value = EXCLUDED.value`,
          [workspaceId, customers + NEEDLES]
        )
        // What autovacuum does after a bulk load: statistics, and the GIN index's pending list (fastupdate) merged
        // into the index. Until then a search also scans that list, and a fresh load would measure slower than a
        // table in use (docs/performance.md).
        yield* sql.unsafe("VACUUM ANALYZE")
      }))
    const seedSeconds = (performance.now() - started) / 1000

    progress(`search (PostgreSQL): selective q at ${customers.toLocaleString("en")} customers`)
    const engine = createSupportEngine({ databaseUrl: url, dispatcher: false, trainingWorker: false })
    try {
      const api = await engine.withToken(token)
      const samples: Array<number> = []
      let matches = 0
      for (let i = 0; i < count * 2; i++) {
        const t = performance.now()
        const page = await api.customers.list({ q: "zanzib quok", per_page: 15 })
        if (i >= count) samples.push(performance.now() - t)
        matches = page.data.length
      }
      samples.sort((a, b) => a - b)
      return { rows: customers, p50: percentile(samples, 50), p99: percentile(samples, 99), matches, seedSeconds }
    } finally {
      await engine.dispose()
    }
  } finally {
    await onServer(server, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  }
}
