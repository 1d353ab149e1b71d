/**
 * Agent retrieval at scale: `agents.ask` through the Promise facade with the local model, on databases of
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
import { median } from "./Settings.js"

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

/** A database seeded with `passages` completed text items and an agent to ask. */
interface Seeded {
  readonly passages: number
  readonly file: string
  readonly workspaceId: string
  readonly agentId: string
  readonly seedSeconds: number
}

const seedDatabase = async (dir: string, passages: number): Promise<Seeded> => {
  const file = join(dir, `ai-${passages}.db`)
  const setup = createSupportEngine({ databaseUrl: `file:${file}` })
  const workspace = await setup.workspaces.create({ name: "Bench" })
  const agent = await (await setup.workspace(workspace.id)).agents.create({ name: "Bot" })
  await setup.dispose()
  const started = performance.now()
  seedPassages(file, workspace.id, passages)
  return {
    passages,
    file,
    workspaceId: workspace.id,
    agentId: agent.id,
    seedSeconds: (performance.now() - started) / 1000
  }
}

/**
 * Seeds each size, then asks every database in turn, `rounds` times `count` questions each after `count` warm-up
 * ones, so that a change in the machine's load (it is shared) falls on every size alike: the p50 and p99 reported
 * are the medians of the rounds'.
 */
export const retrievalLatency = async (
  dir: string,
  sizes: ReadonlyArray<number>,
  count: number,
  rounds: number,
  progress: (message: string) => void
): Promise<Array<RetrievalLatency>> => {
  const seeded: Array<Seeded> = []
  for (const passages of sizes) {
    progress(`ai: seed ${passages.toLocaleString("en")} passages`)
    seeded.push(await seedDatabase(dir, passages))
  }
  const engines = seeded.map((s) => createSupportEngine({ databaseUrl: `file:${s.file}` }))
  try {
    const apis = await Promise.all(seeded.map((s, i) => engines[i]!.workspace(s.workspaceId)))
    const ask = async (i: number) => {
      const t = performance.now()
      const result = await apis[i]!.agents.ask(seeded[i]!.agentId, {
        question: "When does the zanzibar ferry leave?",
        channel: "chat"
      })
      return { ms: performance.now() - t, answered: result.answer !== null }
    }
    for (let i = 0; i < seeded.length; i++) for (let n = 0; n < count; n++) await ask(i)
    const perRound = seeded.map(() => ({ p50: [] as Array<number>, p99: [] as Array<number>, answered: true }))
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < seeded.length; i++) {
        const samples: Array<number> = []
        for (let n = 0; n < count; n++) {
          const { answered, ms } = await ask(i)
          samples.push(ms)
          perRound[i]!.answered &&= answered
        }
        samples.sort((a, b) => a - b)
        perRound[i]!.p50.push(percentile(samples, 50))
        perRound[i]!.p99.push(percentile(samples, 99))
      }
      progress(`ai: round ${round + 1}: ${perRound.map((r) => `${r.p50[round]!.toFixed(3)} ms`).join(", ")} (p50)`)
    }
    return seeded.map((s, i) => ({
      passages: s.passages,
      seedSeconds: s.seedSeconds,
      p50: median(perRound[i]!.p50),
      p99: median(perRound[i]!.p99),
      answered: perRound[i]!.answered
    }))
  } finally {
    await Promise.all(engines.map((engine) => engine.dispose()))
  }
}

export const retrievalReport = (results: ReadonlyArray<RetrievalLatency>): string => {
  // p50 and p99: medians of the rounds' figures.
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
