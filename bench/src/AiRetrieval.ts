/**
 * Agent retrieval at scale (D53): `agents.ask` through the Promise facade with the local model, on databases of
 * 10,000 and 1,000,000 completed training passages. The passages are bulk-inserted in one transaction straight
 * into `training_data`, whose triggers fill the passage index exactly as the engine's own writes do; five "needle"
 * passages hold the words asked about. A selective question reads the matching postings only, so its cost should
 * hardly grow with the index: the report gives the latency at each size and the ratio largest/smallest.
 */
import { createSupportEngine } from "@support-engine/engine"
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { percentile } from "./Load.js"

export interface RetrievalLatency {
  readonly passages: number
  readonly seedSeconds: number
  readonly p50: number
  readonly p99: number
  readonly answered: boolean
}

const VOCABULARY = ("account billing invoice password login shipping delivery order return refund warranty plan " +
  "subscription upgrade downgrade cancel payment card address profile export import report team member role " +
  "permission settings email notification mobile desktop browser error timeout sync calendar").split(" ")

/** Writes `count` completed text items and five needles straight into the file; triggers fill the index. */
export const seedPassages = (file: string, workspaceId: string, count: number) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  const insert = db.prepare(
    `INSERT INTO training_data (id, workspace_id, type, source, normalized_source, title, description, slug, content,
       question, answer, is_processed, status, training_folder_id, lease_until, created_at, updated_at)
     VALUES (?, ?, 'text', NULL, NULL, ?, NULL, ?, ?, NULL, NULL, 1, 'completed', NULL, NULL, ?, ?)`
  )
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString()
  let x = 2463534242
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % VOCABULARY.length
  }
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const words = Array.from({ length: 24 }, next).map((w) => VOCABULARY[w]).join(" ")
      insert.run(randomUUID(), workspaceId, `Passage ${i}`, `passage-${i}`, `${words}.`, at, at)
    }
    for (let i = 0; i < 5; i++) {
      insert.run(
        randomUUID(),
        workspaceId,
        `Needle ${i}`,
        `needle-${i}`,
        `The zanzibar quokka ferry leaves at noon.`,
        at,
        at
      )
    }
  })()
  db.close()
}

/** Seeds `passages`, then times `count` questions after as many warm-up ones. */
export const retrievalLatency = async (dir: string, passages: number, count: number): Promise<RetrievalLatency> => {
  const file = join(dir, `ai-${passages}.db`)
  const setup = createSupportEngine({ databaseUrl: `file:${file}` })
  const workspace = await setup.workspaces.create({ name: "Bench" })
  const agent = await (await setup.workspace(workspace.id)).agents.create({ name: "Bot" })
  await setup.dispose()
  const started = performance.now()
  seedPassages(file, workspace.id, passages)
  const seedSeconds = (performance.now() - started) / 1000
  const engine = createSupportEngine({ databaseUrl: `file:${file}` })
  try {
    const api = await engine.workspace(workspace.id)
    const samples: Array<number> = []
    let answered = false
    for (let i = 0; i < count * 2; i++) {
      const t = performance.now()
      const result = await api.agents.ask(agent.id, {
        question: "When does the zanzibar ferry leave?",
        channel: "chat"
      })
      if (i >= count) samples.push(performance.now() - t)
      answered = result.answer !== null
    }
    samples.sort((a, b) => a - b)
    return { passages, seedSeconds, p50: percentile(samples, 50), p99: percentile(samples, 99), answered }
  } finally {
    await engine.dispose()
  }
}

export const retrievalReport = (results: ReadonlyArray<RetrievalLatency>): string => {
  const lines = results.map((r) =>
    `  ${r.passages.toLocaleString("en").padStart(10)} passages: p50 ${r.p50.toFixed(2)} ms, p99 ${
      r.p99.toFixed(2)
    } ms (seeded in ${r.seedSeconds.toFixed(1)} s, answered: ${r.answered})`
  )
  const first = results[0]
  const last = results[results.length - 1]
  const ratio = first && last ? `  p50 ratio largest/smallest: ${(last.p50 / first.p50).toFixed(2)}x` : ""
  return ["agent ask (retrieval + local model), Promise facade, SQLite:", ...lines, ratio].join("\n")
}
