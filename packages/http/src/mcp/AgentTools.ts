/** The MCP tool over AI agents: `POST /v1/agents/{id}/ask`. */
import { AgentAsk, AgentId, AskAgent, AskAnswer, Principal } from "@support-engine/core"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { asTool, ToolFailed } from "./ToolAccess.js"

const AskAgentTool = Tool.make("ask_agent", {
  description: "Ask one of the workspace's AI agents a customer's question and get the answer it would give, from " +
    "its training data and the published knowledge base, without sending anything: nothing is stored. Use it to " +
    "draft a reply or check what the agent knows. Returns `answer` with its `citations` (the sources), or " +
    "`answer: null` and the `escalation` (reason) when the agent would hand the question to a person.",
  parameters: Schema.Struct({
    agent_id: AgentId.annotate({ description: "The agent's id (a UUID)." }),
    question: AskAgent.fields.question.annotate({ description: "The question, as a customer would write it." }),
    channel: AskAgent.fields.channel.annotate({
      description: "The channel the question comes from (its escalation rules apply): email or chat."
    })
  }),
  success: AskAnswer,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Ask an AI agent").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

export const AgentTools = Toolkit.make(AskAgentTool)

export const AgentToolsLive = AgentTools.toLayer(Effect.gen(function*() {
  const agents = yield* AgentAsk
  return AgentTools.of({
    ask_agent: ({ agent_id, channel, question }) => asTool(agents.ask(agent_id, { question, channel }))
  })
}))
