/**
 * Lists: a workspace's list total equals the rows the model says it has, the page holds that many (up
 * to its size), and every row on it is the workspace's own (isolation). After each step the lists the step
 * touched are checked; every `fullCheckEvery` steps and at the end, every list of every workspace (training folders
 * too), and every webhook's `is_active` against the model's.
 */
import {
  Agents,
  Companies,
  Conversations,
  Customers,
  KnowledgeBase,
  ListAgents,
  ListArticles,
  ListCompanies,
  ListConversations,
  ListCustomers,
  ListMessages,
  ListTrainingData,
  ListWebhooks,
  Messages,
  type Page,
  type Principal,
  Training,
  Webhooks
} from "@support-engine/core"
import { Effect } from "effect"
import type { TestEngine } from "../../TestEngine.js"
import { ensure } from "../Failure.js"
import type { ListKind, Space } from "../Model.js"
import { asPrincipal, type Sim, valid } from "../ops/Op.js"

/**
 * A full check reads a page of 100 rows; a step's check a page of one, whose total is the invariant (decoding rows
 * costs more than counting them, and a step changes a list by a row or two).
 */
const FULL_PAGE = 100
const STEP_PAGE = 1

type Lister = Effect.Effect<
  Page<{ readonly id: string }>,
  { readonly _tag: string },
  TestEngine | Principal
>

const listers = (per_page: number): Record<ListKind, Lister> => ({
  customers: Effect.flatMap(Customers, (s) => s.list(new ListCustomers({ per_page }))),
  companies: Effect.flatMap(Companies, (s) => s.list(new ListCompanies({ per_page }))),
  agents: Effect.flatMap(Agents, (s) => s.list(new ListAgents({ per_page }))),
  conversations: Effect.flatMap(Conversations, (s) => s.list(new ListConversations({ per_page }))),
  messages: Effect.flatMap(Messages, (s) => s.list(new ListMessages({ per_page }))),
  training: Effect.flatMap(Training, (s) => s.list(new ListTrainingData({ per_page }))),
  articles: Effect.flatMap(KnowledgeBase, (s) => s.list(new ListArticles({ per_page }))),
  webhooks: Effect.flatMap(Webhooks, (s) => s.list(new ListWebhooks({ per_page })))
})
const fullListers = listers(FULL_PAGE)
const stepListers = listers(STEP_PAGE)

/** The ids the model says a workspace has of a kind (messages: only their number is known). */
const modelOf = (space: Space, kind: ListKind): { readonly total: number; readonly ids: Set<string> | undefined } => {
  const ids = (xs: ReadonlyArray<string>) => ({ total: xs.length, ids: new Set(xs) })
  switch (kind) {
    case "customers":
      return ids(space.customers.map((c) => c.id))
    case "companies":
      return ids(space.companies)
    case "agents":
      return ids(space.agents.filter((a) => !a.deleted).map((a) => a.id))
    case "conversations":
      return ids(space.conversations.filter((c) => !c.deleted).map((c) => c.id))
    case "messages":
      return { total: space.messages, ids: undefined }
    case "training":
      return ids(space.training)
    case "articles":
      return ids(space.articles)
    case "webhooks":
      return ids(space.hooks.map((h) => h.id))
  }
}

export const KINDS: ReadonlyArray<ListKind> = [
  "customers",
  "companies",
  "agents",
  "conversations",
  "messages",
  "training",
  "articles",
  "webhooks"
]

export const checkList = (sim: Sim, space: Space, kind: ListKind, full: boolean) =>
  Effect.gen(function*() {
    const size = full ? FULL_PAGE : STEP_PAGE
    const page = yield* valid(sim, space, `list ${kind}`, (full ? fullListers : stepListers)[kind])
    const model = modelOf(space, kind)
    const detail = () =>
      `workspace ${space.index} ${kind}: total ${page.meta.total}, rows ${page.data.length}, model ${model.total}`
    yield* ensure(page.meta.total === model.total, "list totals equal the rows", detail)
    yield* ensure(page.data.length === Math.min(model.total, size), "a list page holds its rows", detail)
    if (model.ids !== undefined) {
      const strangers = page.data.filter((row) => !model.ids!.has(row.id))
      yield* ensure(
        strangers.length === 0,
        "nothing of one workspace is visible from another",
        () => `${detail()}: ${strangers.map((r) => r.id).join(", ")}`
      )
    }
  })

/**
 * A workspace's training folders (in process only, a plain array): exactly the ones the model says it made, none
 * of another workspace.
 */
export const checkFolders = (sim: Sim, space: Space) =>
  Effect.gen(function*() {
    const folders = yield* valid(sim, space, "list training folders", Effect.flatMap(Training, (t) => t.listFolders()))
    const ids = new Set<string>(space.folders)
    const strangers = folders.filter((f) => !ids.has(f.id))
    yield* ensure(
      folders.length === space.folders.length && strangers.length === 0,
      "the training folder list holds the workspace's folders, and only them",
      () =>
        `workspace ${space.index}: ${folders.length} folders, model ${space.folders.length}, not its own: ${
          strangers.map((f) => f.id).join(", ")
        }`
    )
  })

/** The lists the step touched, or every list of every workspace and every webhook's state. */
export const checkLists = (sim: Sim, full: boolean) =>
  Effect.gen(function*() {
    // After a step, only the workspaces it touched are looked at (in the same order), not every workspace's every
    // kind by name.
    const touched = new Set<number>()
    for (const key of sim.world.touched) touched.add(Number(key.slice(0, key.indexOf(":"))))
    for (const space of sim.world.spaces) {
      if (!full && !touched.has(space.index)) continue
      for (const kind of KINDS) {
        if (full || sim.world.touched.has(`${space.index}:${kind}`)) yield* checkList(sim, space, kind, full)
      }
      if (!full) continue
      yield* checkFolders(sim, space)
      for (const hook of space.hooks) {
        const found = yield* sim.engine.run(
          asPrincipal(space.principal)(Effect.flatMap(Webhooks, (w) => w.get(hook.id)))
        )
          .pipe(Effect.orDie)
        yield* ensure(
          found.is_active === hook.active,
          "a webhook is active exactly when the delivery rules leave it so",
          () => `${hook.url}: engine ${found.is_active}, model ${hook.active}`
        )
      }
    }
    sim.world.touched.clear()
  })
