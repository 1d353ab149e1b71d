/**
 * Search at scale: a selective full-text search (`q` on customers, 5 matches) on databases of different
 * sizes, through the Promise facade. The index (SQLite FTS5, kept by triggers) is filled as the seed inserts; five
 * "needle" customers are then inserted the same way. A selective search reads the matching postings only, so its
 * cost should not grow with the table: the report gives the latency at each size and the ratio largest/smallest.
 */
import { createSupportEngine } from "@support-engine/engine"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { performance } from "node:perf_hooks"
import { percentile } from "./Load.js"
import type { Seeded } from "./Seed.js"

export interface SearchLatency {
  readonly rows: number
  readonly p50: number
  readonly p99: number
  readonly matches: number
}

const NEEDLES = 5

const addNeedles = (seeded: Seeded) => {
  const db = new Database(seeded.file)
  const insert = db.prepare(
    `INSERT INTO customers (id, workspace_id, first_name, last_name, email, email_normalized, phone, locale,
       country, company_id, avatar_url, first_seen_at, last_seen_at, created_at, updated_at)
     VALUES (?, ?, 'Zanzibar', 'Quokka', ?, ?, NULL, 'en', 'NL', NULL, NULL, ?, ?, ?, ?)`
  )
  db.transaction(() => {
    for (let i = 0; i < NEEDLES; i++) {
      const at = new Date(Date.UTC(2030, 0, 1) + i * 1000).toISOString()
      const email = `needle${i}@bench.example`
      insert.run(randomUUID(), seeded.workspaceId, email, email, at, at, at, at)
    }
  })()
  db.close()
}

/** Latency of `GET /customers?q=zanzib` in process, `count` samples after as many warm-up calls. */
export const searchLatency = async (seeded: Seeded, count: number): Promise<SearchLatency> => {
  addNeedles(seeded)
  const engine = createSupportEngine({ databaseUrl: `file:${seeded.file}` })
  try {
    const api = await engine.withToken(seeded.token)
    const samples: Array<number> = []
    let matches = 0
    for (let i = 0; i < count * 2; i++) {
      const t = performance.now()
      const page = await api.customers.list({ q: "zanzib quok", per_page: 15 })
      if (i >= count) samples.push(performance.now() - t)
      matches = page.data.length
    }
    samples.sort((a, b) => a - b)
    return { rows: seeded.customers, p50: percentile(samples, 50), p99: percentile(samples, 99), matches }
  } finally {
    await engine.dispose()
  }
}
