/** The search-at-scale phase: a selective `q` on customers at each size, SQLite and (when configured) PostgreSQL. */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type SearchLatency, searchLatency } from "./Search.js"
import { benchPgUrl, searchLatencyPostgres } from "./SearchPostgres.js"
import { seed } from "./Seed.js"
import { progress, settings } from "./Settings.js"

export interface SearchResults {
  readonly sqlite: ReadonlyArray<SearchLatency>
  /** Empty without SUPPORT_BENCH_PG_URL or SUPPORT_TEST_PG_URL. */
  readonly postgres: ReadonlyArray<SearchLatency>
}

/** Seeds each search size and measures a selective search on it, on SQLite (Search.ts) and PostgreSQL. */
export async function searchPhase(dir: string): Promise<SearchResults> {
  const sqlite: Array<SearchLatency> = []
  for (const size of settings.searchSizes) {
    progress(`search: seed ${size.toLocaleString("en")} customers (the text index is kept as they are inserted)`)
    const s = await seed(join(dir, `search-${size}.db`), size)
    progress(`search: selective q at ${size.toLocaleString("en")} customers`)
    sqlite.push(await searchLatency(s, settings.scaleSamples))
    rmSync(s.file, { force: true })
  }
  const postgres: Array<SearchLatency> = []
  if (benchPgUrl === undefined) progress("search (PostgreSQL): skipped, no SUPPORT_BENCH_PG_URL or SUPPORT_TEST_PG_URL")
  else {
    for (const size of settings.searchSizes) {
      postgres.push(await searchLatencyPostgres(benchPgUrl, size, settings.scaleSamples, progress))
    }
  }
  return { sqlite, postgres }
}

export function searchLines(title: string, results: ReadonlyArray<SearchLatency>): string {
  const lines = results.map((r) =>
    `  ${r.rows.toLocaleString("en").padStart(10)} rows: p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms ` +
    `(${r.matches} matches)`
  )
  const first = results[0]
  const last = results[results.length - 1]
  const ratio = first !== undefined && last !== undefined ? (last.p50 / first.p50).toFixed(2) : "n/a"
  return `${title}:\n${lines.join("\n")}\n  ratio largest/smallest p50: ${ratio}x`
}

export function searchReport(results: SearchResults): string {
  const sqlite = searchLines("Selective search (q on customers, in process, SQLite)", results.sqlite)
  return results.postgres.length === 0
    ? sqlite
    : `${sqlite}\n${searchLines("Selective search (q on customers, in process, PostgreSQL)", results.postgres)}`
}
