/**
 * The MCP tools of the copilot: `POST /v1/conversations/{id}/suggest-reply` and `/summarize`. Both read the
 * conversation and store nothing, so a model can draft and sum up for the person who answers.
 */
import {
  AgentId,
  ConversationId,
  ConversationSummary,
  Copilot,
  Principal,
  SuggestedReply,
  SuggestReply
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { asTool, ToolFailed } from "./ToolAccess.js"

const conversationId = ConversationId.annotate({ description: "The conversation's id (a UUID)." })
const agentId = AgentId.annotate({
  description: "The id (a UUID) of the workspace's AI agent whose training data and knowledge base are used."
})

const SuggestReplyTool = Tool.make("suggest_reply", {
  description: "Draft a reply to the conversation's latest customer message, written by one of the workspace's AI " +
    "agents from its content and the conversation so far, for a person to review and send (with " +
    "`reply_to_conversation`): nothing is sent or stored. Returns `suggestion` with its `citations`, or " +
    "`suggestion: null` and the `escalation` the agent would make instead; both null before the customer has " +
    "written. The customer's language is preferred (`locale`, else the customer's).",
  parameters: Schema.Struct({
    conversation_id: conversationId,
    agent_id: agentId,
    locale: SuggestReply.fields.locale.annotate({
      description: "The language to answer in (for example `de`); the customer's own when absent."
    })
  }),
  success: SuggestedReply,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Suggest a reply").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

const SummarizeConversationTool = Tool.make("summarize_conversation", {
  description: "Sum a conversation up in at most 1,000 characters: the customer's first request, what was " +
    "answered and what is still open, in the customer's language. Use it to catch up before taking a " +
    "conversation over. Returns `summary` (empty for a conversation without public messages); nothing is stored.",
  parameters: Schema.Struct({ conversation_id: conversationId, agent_id: agentId }),
  success: ConversationSummary,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Summarize a conversation").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

export const CopilotTools = Toolkit.make(SuggestReplyTool, SummarizeConversationTool)

export const CopilotToolsLive = CopilotTools.toLayer(Effect.gen(function*() {
  const copilot = yield* Copilot
  return CopilotTools.of({
    suggest_reply: ({ agent_id, conversation_id, locale }) =>
      asTool(copilot.suggestReply(conversation_id, { agent_id, ...(locale === undefined ? {} : { locale }) })),
    summarize_conversation: ({ agent_id, conversation_id }) => asTool(copilot.summarize(conversation_id, { agent_id }))
  })
}))
