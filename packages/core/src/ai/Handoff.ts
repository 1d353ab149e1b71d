/**
 * A handoff of the reply loop: the agent stops answering and a person takes over. In the caller's
 * transaction: an internal system message saying why, the reassignment (to the rule's `escalate_to` user, else
 * nobody), `conversation.escalated` with the reason and the conversation's summary (so the person named can act
 * from the event alone) and `conversation.assigned.updated`, as every change of assignee records.
 */
import { Effect, Option } from "effect"
import type { Agent } from "../agents/Agent.js"
import { Conversation, eventData } from "../conversations/Conversation.js"
import { ConversationRepo } from "../conversations/ConversationRepo.js"
import { Message } from "../conversations/Message.js"
import { Messages } from "../conversations/Messages.js"
import { Events } from "../events/Events.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { MessageId, type WorkspaceId } from "../shared/Ids.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { UserRepo } from "../workspaces/WorkspaceRepo.js"
import type { Escalation } from "./Answer.js"

/** The internal note a handoff leaves for the person who takes over. */
export const handoffNote = (agent: Agent, escalation: Escalation): string => {
  const lead = `${agent.name} handed this conversation to a person:`
  switch (escalation.reason) {
    case "escalation_rule": {
      const rule = agent.escalation_rules.find((r) => r.id === escalation.rule_id)
      return `${lead} the customer's message matched the escalation rule "${rule?.rule ?? escalation.rule_id}".`
    }
    case "usage_limit":
      return `${lead} it has sent ${agent.max_messages_per_session} replies since the conversation was opened, its ` +
        `limit per session.`
    case "prohibited_phrase":
      return `${lead} its answer contained a prohibited phrase, also when drafted again.`
    case "no_answer":
      return `${lead} nothing in its training data or the knowledge base answers the customer's message.`
    case "model_error":
      return `${lead} its language model failed to answer.`
  }
}

export const makeHandoff = Effect.gen(function*() {
  const conversations = yield* ConversationRepo
  const users = yield* UserRepo
  const messages = yield* Messages
  const events = yield* Events
  const ids = yield* IdGenerator

  return Tracing.fn("Handoff.handOff")(
    function*(
      workspaceId: WorkspaceId,
      conversation: Conversation,
      agent: Agent,
      escalation: Escalation,
      summary: string
    ) {
      const at = yield* now
      // A rule's user deleted since the rule was saved: the conversation goes to nobody rather than nowhere.
      const target = escalation.escalate_to === null
        ? Option.none()
        : Option.map(yield* users.findById(workspaceId, escalation.escalate_to), (u) => u.id)
      const note = new Message({
        id: MessageId.make(yield* ids.uuid),
        conversation_id: conversation.id,
        sender_type: "system",
        sender_id: null,
        customer_id: conversation.customer_id,
        content: handoffNote(agent, escalation),
        sent_at: at,
        is_internal: true,
        from: [],
        to: [],
        cc: [],
        bcc: [],
        email_status: null,
        email_error_message: null,
        citations: [],
        created_at: at
      })
      const { conversation: noted } = yield* messages.append(workspaceId, conversation, note)
      const handed = new Conversation({
        ...noted,
        assignee_id: Option.getOrNull(target),
        assignee_type: Option.isSome(target) ? "user" : null,
        updated_at: at
      })
      yield* conversations.update(workspaceId, handed)
      yield* events.record("conversation.escalated", {
        conversation_id: conversation.id,
        reason: escalation.reason,
        rule_id: escalation.rule_id,
        assignee_id: handed.assignee_id,
        summary
      })
      if (handed.assignee_id !== conversation.assignee_id || handed.assignee_type !== conversation.assignee_type) {
        yield* events.record("conversation.assigned.updated", {
          ...eventData(handed),
          previous: { assignee_id: conversation.assignee_id, assignee_type: conversation.assignee_type }
        })
      }
      return handed
    }
  )
})
