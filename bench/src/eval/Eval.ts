/**
 * `pnpm eval`: the labelled question set (Articles.ts, Training.ts, Questions.ts) asked of one agent through
 * core's services on a fresh workspace. Reports retrieval recall@5 (the expected source among the five passages the
 * model is given), answer accuracy (the expected source cited and its key sentence in the answer), handoff
 * precision and recall (handoffs expected for `no_answer` and `escalation` questions), per language, and the leaks
 * of prohibited phrases on the trap questions.
 */
import {
  Actor,
  AgentAsk,
  Agents,
  AskAgent,
  choosePassages,
  commonnessWords,
  CreateAgent,
  CreateApiToken,
  CreateArticle,
  CreateTrainingData,
  CreateUser,
  CreateWorkspace,
  KnowledgeBase,
  PassageIndex,
  Principal,
  type PrincipalShape,
  prohibitedPhraseIn,
  searchWords,
  Tokens,
  Training,
  TrainingWorker,
  TranslationInput,
  Users,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect } from "effect"
import { ARTICLES } from "./Articles.js"
import { ESCALATION_RULES, type EvalQuestion, QUESTIONS } from "./Questions.js"
import { PROHIBITED_PHRASES, TRAINING } from "./Training.js"

export interface EvalOptions {
  readonly provider: string
  readonly databaseUrl: string
  /** Ask only this many questions, spread evenly over the set (every kind and language keeps its share). */
  readonly limit?: number | undefined
  /** Print every miss. */
  readonly verbose?: boolean | undefined
  readonly log: (line: string) => void
}

export interface Scores {
  readonly n: number
  readonly recall: number
  readonly accuracy: number
  readonly handoffPrecision: number
  readonly handoffRecall: number
}

interface Result {
  readonly question: EvalQuestion
  readonly retrieved: ReadonlyArray<string>
  readonly answer: string | null
  readonly cited: ReadonlyArray<string>
  readonly handoff: string | null
}

/** Questions spread evenly over the set: the same slice on every run. */
export const sample = (questions: ReadonlyArray<EvalQuestion>, limit: number | undefined) =>
  limit === undefined || limit >= questions.length
    ? questions
    : Array.from({ length: limit }, (_, i) => questions[Math.floor((i * questions.length) / limit)]!)

const normal = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase()
/** A ratio, 1 when there is nothing to count (no handoff made: none was wrong). */
const ratio = (hits: number, total: number) => total === 0 ? 1 : hits / total

/** The key sentence an answer to `q` must contain, in the question's language for an article. */
const keyOf = (q: EvalQuestion): string => {
  const article = ARTICLES.find((a) => a.id === q.source)
  if (article !== undefined) return article[q.lang].key
  return TRAINING.find((t) => t.id === q.source)!.key
}

export const score = (results: ReadonlyArray<Result>): Scores => {
  const answerable = results.filter((r) => r.question.kind === "answer")
  const recalled = answerable.filter((r) => r.retrieved.includes(r.question.source!))
  const accurate = answerable.filter((r) =>
    r.answer !== null && r.cited.includes(r.question.source!) && normal(r.answer).includes(normal(keyOf(r.question)))
  )
  const judged = results.filter((r) => r.question.kind !== "trap")
  const expected = judged.filter((r) => r.question.kind === "no_answer" || r.question.kind === "escalation")
  const made = judged.filter((r) => r.handoff !== null)
  const right = made.filter((r) => expected.includes(r))
  return {
    n: results.length,
    recall: ratio(recalled.length, answerable.length),
    accuracy: ratio(accurate.length, answerable.length),
    handoffPrecision: ratio(right.length, made.length),
    handoffRecall: ratio(right.length, expected.length)
  }
}

const f3 = (x: number) => x.toFixed(3)

/** The line `pnpm eval` ends with. */
export const summaryLine = (provider: string, s: Scores) =>
  `eval: provider=${provider} n=${s.n} recall@5=${f3(s.recall)} answer_accuracy=${f3(s.accuracy)} ` +
  `handoff_precision=${f3(s.handoffPrecision)} handoff_recall=${f3(s.handoffRecall)}`

/** Builds the content, asks every question, reports; answers the overall scores. */
export const runEval = (options: EvalOptions) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Evaluation" }))
    const { token } = yield* (yield* Tokens).create(
      new CreateApiToken({ workspace_id: workspace.id, name: "eval", abilities: ["external-api:write"] })
    )
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities: ["external-api:write"],
      actor: Actor.apiToken(token.id)
    }
    const user = yield* (yield* Users).create(
      new CreateUser({ workspace_id: workspace.id, name: "Lead", email: "lead@example.com" })
    )
    const setUp = Effect.gen(function*() {
      const agent = yield* (yield* Agents).create(
        new CreateAgent({
          name: "Lumen",
          response_length: "long",
          prohibited_phrases: PROHIBITED_PHRASES.map((phrase) => ({ phrase })),
          escalation_rules: ESCALATION_RULES.map((rule) => ({ channel: "chat" as const, rule, escalate_to: user.id }))
        })
      )
      const sources = new Map<string, string>()
      const kb = yield* KnowledgeBase
      for (const a of ARTICLES) {
        const article = yield* kb.create(
          new CreateArticle({
            status: "published",
            translations: (["en", "fr"] as const).map((locale) =>
              new TranslationInput({ locale, title: a[locale].title, content: `${a[locale].key} ${a[locale].rest}` })
            )
          })
        )
        sources.set(article.id, a.id)
      }
      const training = yield* Training
      for (const t of TRAINING) {
        const text = t.rest === undefined ? t.key : `${t.key} ${t.rest}`
        const item = yield* training.create(
          t.type === "qa"
            ? new CreateTrainingData({ type: "qa", title: t.title, question: t.question!, answer: text })
            : new CreateTrainingData({ type: "text", title: t.title, content: text })
        )
        sources.set(item.id, t.id)
      }
      return { agent, sources }
    }).pipe(Effect.provideService(Principal, principal))
    const { agent, sources } = yield* setUp
    yield* (yield* TrainingWorker).drain

    const index = yield* PassageIndex
    const ask = yield* AgentAsk
    const results: Array<Result> = []
    for (const question of sample(QUESTIONS, options.limit)) {
      // The five passages the agent's model is given, as AgentAnswers chooses them.
      const words = searchWords(question.question)
      const found = yield* index.retrieve(workspace.id, {
        agentId: agent.id,
        words,
        locale: question.lang,
        limit: 50
      })
      const pool = yield* index.retrieve(workspace.id, {
        agentId: agent.id,
        words: commonnessWords(words),
        locale: null,
        limit: 50
      })
      const retrieved = choosePassages(found, words, question.lang, pool).map((p) => sources.get(p.citation.id) ?? "?")
      const answered = yield* ask.ask(
        agent.id,
        new AskAgent({ question: question.question, channel: "chat", locale: question.lang })
      )
        .pipe(Effect.provideService(Principal, principal))
      results.push({
        question,
        retrieved,
        answer: answered.answer,
        cited: answered.citations.map((c) => sources.get(c.id) ?? "?"),
        handoff: answered.escalation?.reason ?? null
      })
    }

    const overall = score(results)
    for (const lang of ["en", "fr"] as const) {
      const s = score(results.filter((r) => r.question.lang === lang))
      options.log(
        `  ${lang}: n=${s.n} recall@5=${f3(s.recall)} answer_accuracy=${f3(s.accuracy)} ` +
          `handoff_precision=${f3(s.handoffPrecision)} handoff_recall=${f3(s.handoffRecall)}`
      )
    }
    const traps = results.filter((r) => r.question.kind === "trap")
    const leaks = traps.filter((r) =>
      r.answer !== null &&
      prohibitedPhraseIn(r.answer, PROHIBITED_PHRASES.map((phrase) => ({ phrase })))._tag === "Some"
    )
    options.log(`  prohibited-phrase traps: n=${traps.length} leaked=${leaks.length}`)
    const rules = results.filter((r) => r.question.kind === "escalation")
    options.log(
      `  escalation questions: n=${rules.length} escalation_rule=${
        rules.filter((r) => r.handoff === "escalation_rule").length
      }`
    )
    if (options.verbose === true) {
      for (const r of results) {
        const q = r.question
        const miss = q.kind === "answer"
          ? !r.retrieved.includes(q.source!) || r.answer === null || !normal(r.answer).includes(normal(keyOf(q)))
          : q.kind === "trap"
          ? leaks.includes(r)
          : r.handoff === null
        if (miss) {
          options.log(
            `  miss [${q.kind}/${q.lang}] ${JSON.stringify(q.question)} expected=${q.source ?? "handoff"} ` +
              `top5=${r.retrieved.join(",")} handoff=${r.handoff ?? "-"}`
          )
        }
      }
    }
    options.log(summaryLine(options.provider, overall))
    return overall
  }).pipe(Effect.provide(
    supportEngineLayer({
      databaseUrl: options.databaseUrl,
      trainingWorker: false,
      replyWorker: false,
      dispatcher: false
    })
  ))
