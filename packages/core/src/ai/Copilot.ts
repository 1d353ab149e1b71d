/**
 * The copilot: an agent helping the person who answers a conversation. `suggestReply` drafts a reply to the
 * conversation's latest customer message from the agent's content, `summarize` sums the conversation up. Any agent
 * of the workspace may help, whatever its `auto_reply`; nothing is stored and no event is recorded.
 */
import { Context, Effect, Layer, Option } from "effect"
import { AgentRepo } from "../agents/AgentRepo.js"
import { ConversationRepo, MessageRepo } from "../conversations/ConversationRepo.js"
import { CustomerRepo } from "../customers/CustomerRepo.js"
import { InvalidAgent, orNotFound } from "../shared/Errors.js"
import type { AgentId, ConversationId, CustomerId, WorkspaceId } from "../shared/Ids.js"
import { accessTo } from "../shared/Principal.js"
import * as Tracing from "../shared/Tracing.js"
import { AgentAnswers } from "./AgentAnswers.js"
import { SuggestedReply, type SuggestReply, type SummarizeConversation } from "./Answer.js"
import { ConversationSummary, readTranscript, toLine } from "./Summary.js"

/** Suggestions and summaries read a conversation: `conversations:read` (or the broad read ability). */
const conversationsAccess = accessTo("conversations")
/** Messages before the one answered that a suggestion's model reads, as the reply loop's does. */
const HISTORY = 20

export class Copilot extends Context.Service<Copilot>()("@support-engine/core/Copilot", {
  make: Effect.gen(function*() {
    const agents = yield* AgentRepo
    const conversations = yield* ConversationRepo
    const customers = yield* CustomerRepo
    const answers = yield* AgentAnswers
    const messages = yield* MessageRepo

    const load = Effect.fnUntraced(function*(conversationId: ConversationId, agentId: AgentId) {
      const { workspaceId } = yield* conversationsAccess.canRead
      const conversation = yield* conversations.findById(workspaceId, conversationId).pipe(
        orNotFound("Conversation")
      )
      const agent = yield* agents.findById(workspaceId, agentId)
      if (Option.isNone(agent)) {
        return yield* new InvalidAgent({ message: `Agent ${agentId} is not an agent of this workspace.` })
      }
      const transcript = yield* readTranscript(workspaceId, conversation.id).pipe(
        Effect.provideService(MessageRepo, messages)
      )
      return { workspaceId, conversation, agent: agent.value, transcript }
    })

    /** The request's locale, else the customer's. */
    const localeOf = (workspaceId: WorkspaceId, customerId: CustomerId) =>
      Effect.map(customers.findById(workspaceId, customerId), Option.flatMap((c) => Option.fromNullishOr(c.locale)))

    const suggestReply = Tracing.fn("Copilot.suggestReply")(function*(id: ConversationId, input: SuggestReply) {
      const { agent, conversation, transcript, workspaceId } = yield* load(id, input.agent_id)
      let asked = -1
      for (let i = transcript.length - 1; i >= 0; i--) {
        if (transcript[i]!.sender_type === "customer") {
          asked = i
          break
        }
      }
      // Nothing the customer said yet: nothing to answer, and nothing to hand off either.
      if (asked < 0) return new SuggestedReply({ suggestion: null, citations: [], escalation: null })
      const locale = input.locale ?? Option.getOrNull(yield* localeOf(workspaceId, conversation.customer_id))
      const outcome = yield* answers.answer(workspaceId, agent, {
        question: transcript[asked]!.content,
        channel: conversation.channel,
        locale,
        history: transcript.slice(Math.max(0, asked - HISTORY), asked).map(toLine)
      })
      return outcome._tag === "Answer"
        ? new SuggestedReply({ suggestion: outcome.answer, citations: outcome.citations, escalation: null })
        : new SuggestedReply({ suggestion: null, citations: [], escalation: outcome.escalation })
    })

    const summarize = Tracing.fn("Copilot.summarize")(function*(id: ConversationId, input: SummarizeConversation) {
      const { agent, conversation, transcript, workspaceId } = yield* load(id, input.agent_id)
      const locale = transcript.length === 0
        ? null
        : Option.getOrNull(yield* localeOf(workspaceId, conversation.customer_id))
      return new ConversationSummary({ summary: yield* answers.summarize(agent, transcript.map(toLine), locale) })
    })

    return { suggestReply, summarize } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(AgentAnswers.layer))
}
