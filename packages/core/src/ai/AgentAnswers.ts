/**
 * How an AI agent answers one customer message, shared by the ask endpoint and the reply loop: the escalation
 * rules of the channel first, then retrieval and the answer, whose draft must pass the prohibited-phrase check
 * (one regeneration with an instruction, then a handoff). The message limit is the reply loop's, checked before.
 */
import { Context, Duration, Effect, Layer, Option, Result, Schedule } from "effect"
import type { Agent } from "../agents/Agent.js"
import type { WorkspaceId } from "../shared/Ids.js"
import * as Tracing from "../shared/Tracing.js"
import type { Citation } from "./Answer.js"
import { Escalation, type HandoffReason } from "./Answer.js"
import { AnswerModel, type AnswerRequest, type ModelFailed, type SummaryRequest, trimTo } from "./AnswerModel.js"
import { prohibitedPhraseIn } from "./Guardrails.js"
import { PassageIndex } from "./PassageIndex.js"
import { choosePassages, commonnessWords, searchWords } from "./Relevance.js"
import { extractiveSummary, MAX_SUMMARY_LENGTH, type TranscriptLine } from "./Summary.js"

/** How long one model call may take, and how often a failed call is tried again (with exponential backoff). */
export const MODEL_TIMEOUT = Duration.seconds(30)
export const MODEL_RETRIES = 2
/** Candidates read from the index to choose the passages from (locale preference, shared words). */
const CANDIDATES = 50

export type Outcome =
  | { readonly _tag: "Answer"; readonly answer: string; readonly citations: ReadonlyArray<Citation> }
  | { readonly _tag: "Handoff"; readonly escalation: Escalation }

const handoff = (reason: HandoffReason): Outcome => ({
  _tag: "Handoff",
  escalation: new Escalation({ reason, rule_id: null, escalate_to: null })
})

export interface AnswerInput {
  readonly question: string
  readonly channel: string
  readonly locale: string | null
  readonly history: AnswerRequest["history"]
}

export class AgentAnswers extends Context.Service<AgentAnswers>()("@support-engine/core/AgentAnswers", {
  make: Effect.gen(function*() {
    const index = yield* PassageIndex
    const model = yield* AnswerModel

    const call = <A>(effect: Effect.Effect<A, ModelFailed>) =>
      effect.pipe(
        Effect.timeoutOrElse({ duration: MODEL_TIMEOUT, orElse: () => Effect.fail("timeout" as const) }),
        Effect.retry({
          schedule: Schedule.exponential(Duration.seconds(1)),
          times: MODEL_RETRIES,
          // A refusal that will not change (a 4xx: bad key, unknown model) is not tried again.
          while: (error) => error === "timeout" || error.retryable !== false
        })
      )

    const answer = Tracing.fn("AgentAnswers.answer")(
      function*(workspaceId: WorkspaceId, agent: Agent, input: AnswerInput) {
        const rules = agent.escalation_rules.filter((r) => r.channel === input.channel)
        if (rules.length > 0) {
          const matched = yield* call(model.matchRule(input.question, rules, agent)).pipe(Effect.result)
          if (Result.isFailure(matched)) return handoff("model_error")
          if (Option.isSome(matched.success)) {
            const rule = matched.success.value
            return {
              _tag: "Handoff",
              escalation: new Escalation({ reason: "escalation_rule", rule_id: rule.id, escalate_to: rule.escalate_to })
            } satisfies Outcome
          }
        }
        const question = searchWords(input.question)
        const found = yield* index.retrieve(workspaceId, {
          agentId: agent.id,
          words: question,
          locale: input.locale,
          limit: CANDIDATES
        })
        // Every language's passages for the question's words and their shorter forms, to judge how common each is.
        const pool = yield* index.retrieve(workspaceId, {
          agentId: agent.id,
          words: commonnessWords(question),
          locale: null,
          limit: CANDIDATES
        })
        const passages = choosePassages(found, question, input.locale, pool)
        if (passages.length === 0) return handoff("no_answer")

        const request: AnswerRequest = {
          agent,
          history: input.history,
          question: input.question,
          passages,
          avoid: [],
          locale: input.locale
        }
        const phrases = agent.prohibited_phrases
        let draft = yield* call(model.answer(request)).pipe(Effect.result)
        if (Result.isSuccess(draft) && Option.isSome(prohibitedPhraseIn(draft.success, phrases))) {
          draft = yield* call(model.answer({ ...request, avoid: phrases.map((p) => p.phrase) })).pipe(Effect.result)
          if (Result.isSuccess(draft) && Option.isSome(prohibitedPhraseIn(draft.success, phrases))) {
            return handoff("prohibited_phrase")
          }
        }
        if (Result.isFailure(draft)) return handoff("model_error")
        // Cite what the model was given, in rank order, once per source.
        const seen = new Set<string>()
        const citations = passages.map((p) => p.citation).filter((c) => !seen.has(c.id) && seen.add(c.id) !== undefined)
        return { _tag: "Answer", answer: draft.success, citations } satisfies Outcome
      }
    )

    /**
     * The conversation's summary: the model's when it writes one (one generation, the same timeout, retries
     * and prohibited-phrase check as an answer), else, and whenever the model fails or keeps a prohibited phrase,
     * the extractive one. Never fails: a handoff and a person's request both need one.
     */
    const summarize = Tracing.fn("AgentAnswers.summarize")(
      function*(agent: Agent, transcript: ReadonlyArray<TranscriptLine>, locale: string | null) {
        const fallback = extractiveSummary(transcript)
        if (transcript.length === 0 || model.summarize === undefined) return fallback
        const write = model.summarize
        const request: SummaryRequest = { agent, transcript, maxLength: MAX_SUMMARY_LENGTH, avoid: [], locale }
        const phrases = agent.prohibited_phrases
        let draft = yield* call(write(request)).pipe(Effect.result)
        if (Result.isSuccess(draft) && Option.isSome(prohibitedPhraseIn(draft.success, phrases))) {
          draft = yield* call(write({ ...request, avoid: phrases.map((p) => p.phrase) })).pipe(Effect.result)
          if (Result.isSuccess(draft) && Option.isSome(prohibitedPhraseIn(draft.success, phrases))) return fallback
        }
        if (Result.isFailure(draft)) return fallback
        const text = draft.success.trim()
        return text.length <= MAX_SUMMARY_LENGTH ? text : trimTo(text, MAX_SUMMARY_LENGTH)
      }
    )

    return { answer, summarize } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
