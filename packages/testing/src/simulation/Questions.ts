/**
 * What customers ask AI agents, what the knowledge base says, and the model the agents answer with: the local model
 * (offline, deterministic, extractive), slowed on the test clock for some questions so that reply jobs are in flight
 * when the simulator moves on (or crashes).
 */
import { AnswerModel } from "@support-engine/core"
import { Duration, Effect, Layer } from "effect"

export const ARTICLE = {
  title: "Opening hours and refunds",
  content: "We open at nine in the morning and close at five. Refunds take three days to reach your card."
} as const

/** Phrases an agent may be forbidden to say; the first two are in the article, so drafts contain them. */
export const PHRASES: ReadonlyArray<string> = ["nine", "three days", "guarantee"]

/** An escalation rule that the local model matches on a quoted word (Guardrails.ruleMatches). */
export const RULE = "\"human\""

export interface Question {
  readonly text: string
  /** The model's time to answer it, on the test clock. */
  readonly delay: number
  /**
   * The longest a reply job for it can take: a draft and a second one without a prohibited phrase, or three calls
   * cut at the model timeout (30 s) with 1 s and 2 s between them, then a handoff (AgentAnswers.ts).
   */
  readonly bound: number
}

export const QUESTIONS: ReadonlyArray<Question> = [
  { text: "When do you open in the morning?", delay: 0, bound: 0 },
  { text: "How long do refunds take?", delay: 0, bound: 0 },
  { text: "When do you close, and do refunds take long?", delay: 2_000, bound: 4_000 },
  { text: "Can I talk to a human about my card?", delay: 0, bound: 0 },
  { text: "Do you sell parrots?", delay: 0, bound: 0 },
  { text: "What time do you open? Take your time.", delay: 45_000, bound: 93_000 }
]

/** The longest any question's reply job can take. */
export const SLOWEST = Math.max(...QUESTIONS.map((q) => q.bound))

const delays = new Map(QUESTIONS.map((q) => [q.text, q.delay]))

/** The local model, answering each question after its delay. */
export const SlowLocalModel: Layer.Layer<AnswerModel> = Layer.effect(
  AnswerModel,
  Effect.map(AnswerModel, (local) => ({
    answer: (request) => {
      const delay = delays.get(request.question) ?? 0
      return delay === 0
        ? local.answer(request)
        : Effect.andThen(Effect.sleep(Duration.millis(delay)), local.answer(request))
    },
    matchRule: local.matchRule
  }))
)
