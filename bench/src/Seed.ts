/**
 * Benchmark databases: the engine creates the schema (its migrations), a workspace and a write token through
 * its own API; customers are then bulk-inserted straight through SQL in one transaction, with the counter the
 * unfiltered list total reads set to match.
 */
import { createSupportEngine } from "@support-engine/engine"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"

export interface Seeded {
  readonly file: string
  readonly workspaceId: string
  readonly token: string
  readonly customers: number
  /** Ids spread over the table, for random reads and creates. */
  readonly sampleIds: ReadonlyArray<string>
}

const BASE = Date.UTC(2024, 0, 1)
const SAMPLE = 2_000

export const seed = async (file: string, customers: number): Promise<Seeded> => {
  const engine = createSupportEngine({ databaseUrl: `file:${file}` })
  let workspaceId: string
  let token: string
  try {
    const workspace = await engine.workspaces.create({ name: "Bench" })
    const issued = await engine.tokens.create({
      workspace_id: workspace.id,
      name: "bench",
      abilities: ["external-api:write"]
    })
    workspaceId = workspace.id
    token = issued.token
  } finally {
    await engine.dispose()
  }

  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  const insert = db.prepare(
    `INSERT INTO customers (id, workspace_id, first_name, last_name, email, email_normalized, phone, locale,
       country, company_id, avatar_url, first_seen_at, last_seen_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, 'en', 'NL', NULL, NULL, ?, ?, ?, ?)`
  )
  const sampleIds: Array<string> = []
  const every = Math.max(1, Math.floor(customers / SAMPLE))
  db.transaction(() => {
    for (let i = 0; i < customers; i++) {
      const id = randomUUID()
      // One second apart: distinct, ordered created_at, stored the way the repositories store it (in UTC).
      const at = new Date(BASE + i * 1000).toISOString()
      const email = `customer${i}@bench.example`
      insert.run(id, workspaceId, `First${i}`, `Last${i}`, email, email, at, at, at, at)
      if (i % every === 0 && sampleIds.length < SAMPLE) sampleIds.push(id)
    }
    db.prepare(
      `INSERT INTO workspace_counters (workspace_id, name, value) VALUES (?, 'customers', ?)
       ON CONFLICT (workspace_id, name) DO UPDATE SET value = ?`
    ).run(workspaceId, customers, customers)
  })()
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
  return { file, workspaceId, token, customers, sampleIds }
}
