/**
 * The AI reply loop at scale: customer messages answered by an `auto_reply` agent through the whole loop
 * (message and job in one transaction, the engine's reply worker, retrieval over 100,000 passages with the local
 * model, the reply and its event), in replies per second, beside plain message creation in the same run (messages
 * in conversations no agent answers), through the Promise facade on SQLite.
 */
import { createSupportEngine } from "@support-engine/engine"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { setTimeout as wait } from "node:timers/promises"
import { seedPassages } from "./AiRetrieval.js"

export interface RepliesResult {
  readonly passages: number
  readonly messages: number
  readonly plainPerSecond: number
  readonly repliesPerSecond: number
  readonly answered: number
}

const CONVERSATIONS = 50

export const repliesThroughput = async (dir: string, passages: number, messages: number): Promise<RepliesResult> => {
  const file = join(dir, `replies-${passages}.db`)
  const setup = createSupportEngine({ databaseUrl: `file:${file}`, replyWorker: false })
  const workspace = await setup.workspaces.create({ name: "Bench" })
  await setup.dispose()
  seedPassages(file, workspace.id, passages)

  const engine = createSupportEngine({ databaseUrl: `file:${file}` })
  try {
    const api = await engine.workspace(workspace.id)
    const agent = await api.agents.create({ name: "Bot", auto_reply: true, max_messages_per_session: 1000 })
    const customer = await api.customers.create({ email: "ada@example.com" })
    const open = (assigned: boolean) =>
      Promise.all(Array.from({ length: CONVERSATIONS }, () =>
        api.conversations.create({
          customer_id: customer.id,
          ...(assigned ? { assignee_id: agent.id, assignee_type: "agent" as const } : {})
        })))
    const say = async (conversations: ReadonlyArray<{ id: string }>) => {
      for (let i = 0; i < messages; i++) {
        await api.messages.create(conversations[i % conversations.length]!.id, {
          sender_type: "customer",
          sender_id: customer.id,
          content: "When does the zanzibar ferry leave?"
        })
      }
    }
    const agentMessages = async () =>
      (await api.messages.list({ sender_type: "agent", per_page: 1, page: 1 })).meta.total ?? 0

    const plain = await open(false)
    let started = performance.now()
    await say(plain)
    const plainPerSecond = messages / ((performance.now() - started) / 1000)

    const answered = await open(true)
    started = performance.now()
    await say(answered)
    // The engine's worker answers in the background: the loop ends when the last reply is stored.
    // Bounded, so a loop that hands off instead of answering reports its count instead of hanging.
    const deadline = performance.now() + 120_000
    while (await agentMessages() < messages && performance.now() < deadline) await wait(5)
    const repliesPerSecond = messages / ((performance.now() - started) / 1000)
    return { passages, messages, plainPerSecond, repliesPerSecond, answered: await agentMessages() }
  } finally {
    await engine.dispose()
  }
}

export const repliesReport = (r: RepliesResult): string =>
  [
    `AI reply loop, Promise facade, SQLite, local model, ${r.passages.toLocaleString("en")} passages:`,
    `  plain customer messages: ${r.plainPerSecond.toFixed(0)}/s`,
    `  customer messages answered through the loop: ${r.repliesPerSecond.toFixed(0)} replies/s (${r.answered} replies)`,
    `  ratio replies/plain messages: ${(r.repliesPerSecond / r.plainPerSecond).toFixed(2)}`
  ].join("\n")
