/**
 * `POST /agents/{id}/ask`: what the agent would answer, without a conversation, so a workspace can try an
 * agent on its content before switching `auto_reply` on. Works for every agent, active, copilot or not; nothing is
 * stored and no event is recorded.
 */
import { Context, Effect, Layer } from "effect"
import { AgentRepo } from "../agents/AgentRepo.js"
import { orNotFound } from "../shared/Errors.js"
import type { AgentId } from "../shared/Ids.js"
import { accessTo } from "../shared/Principal.js"
import * as Tracing from "../shared/Tracing.js"
import { AgentAnswers } from "./AgentAnswers.js"
import { type AskAgent, AskAnswer } from "./Answer.js"

/** Every operation here acts on agents: their abilities, or the broad ones, allow it. */
const { canRead } = accessTo("agents")

export class AgentAsk extends Context.Service<AgentAsk>()("@support-engine/core/AgentAsk", {
  make: Effect.gen(function*() {
    const agents = yield* AgentRepo
    const answers = yield* AgentAnswers

    const ask = Tracing.fn("AgentAsk.ask")(function*(id: AgentId, input: AskAgent) {
      const principal = yield* canRead
      const agent = yield* agents.findById(principal.workspaceId, id).pipe(orNotFound("Agent"))
      const outcome = yield* answers.answer(principal.workspaceId, agent, {
        question: input.question,
        channel: input.channel,
        locale: input.locale ?? null,
        history: []
      })
      return outcome._tag === "Answer"
        ? new AskAnswer({ answer: outcome.answer, citations: outcome.citations, escalation: null })
        : new AskAnswer({ answer: null, citations: [], escalation: outcome.escalation })
    })

    return { ask } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(AgentAnswers.layer))
}
