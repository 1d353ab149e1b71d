/**
 * AI agents: every customer message to a conversation whose agent answers by itself gets exactly one answer,
 * a reply or a handoff (`conversation.escalated`), and nothing else gets one; no reply contains a phrase the agent
 * must not say; no agent sends more replies in a session (since the conversation was opened or reopened) than its
 * limit (its own replies: those of an agent the conversation had before do not count). Answers are read from the event log; asks are made by ops/Conversations.ts.
 */
import type { Event } from "@support-engine/core"
import { Effect } from "effect"
import { broken, ensure } from "../Failure.js"
import type { ConversationModel, Space, World } from "../Model.js"

/** Whole-word, case-insensitive, as the prohibited-phrase guardrail reads a phrase. */
const says = (text: string, phrase: string) => {
  const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return ` ${words(text).join(" ")} `.includes(` ${words(phrase).join(" ")} `)
}

/**
 * `stored` reads the reply as the conversation holds it: what the customer sees is what must be free of prohibited
 * phrases, and it must be what the event said.
 */
export const onReplyEvent = (
  world: World,
  space: Space,
  event: Event,
  stored: (conversation: string, message: string) => Effect.Effect<string | undefined>
) =>
  Effect.gen(function*() {
    const agentReply = event.event === "conversation.agent.message.created" && event.actor.type === "agent"
    if (!agentReply && event.event !== "conversation.escalated") return
    // Erased before it was read: its conversation, asks and message went with the customer.
    if (event.data["redacted"] === true) return
    const conversation = world.conversations.get(String(event.data["conversation_id"]))
    if (conversation === undefined) return yield* broken("answers come only in the workspace's conversations", event.id)
    const ask = conversation.asks.shift()
    if (ask === undefined) {
      return yield* broken(
        "an agent answers only customer messages it was asked, each once",
        `${event.event} in ${conversation.id}`
      )
    }
    conversation.messages++
    space.messages++
    if (agentReply) {
      const message = event.data["message"] as { readonly id: string; readonly content: string }
      const content = yield* stored(conversation.id, message.id)
      const forbidden = ask.phrasesAtAsk.filter((p) =>
        ask.agent.phrases.includes(p) && (says(message.content, p) || says(content ?? "", p))
      )
      yield* ensure(
        forbidden.length === 0,
        "no agent reply contains a prohibited phrase",
        () => `${forbidden.join(", ")} in ${JSON.stringify(content)}`
      )
      yield* ensure(
        content === message.content,
        "an agent's reply is stored as its event says",
        () => `${JSON.stringify(content)} against ${JSON.stringify(message.content)}`
      )
      const replies = (conversation.sessionReplies.get(ask.agent.id) ?? 0) + 1
      conversation.sessionReplies.set(ask.agent.id, replies)
      yield* ensure(
        replies <= Math.max(ask.limitAtAsk, ask.agent.limit),
        "no agent exceeds its message limit per session",
        () => `${replies} replies by ${ask.agent.id}, limit ${ask.agent.limit}`
      )
      return
    }
    // A handoff: the conversation goes to the rule's user or to nobody, and the agent stops answering it.
    const assignee = event.data["assignee_id"]
    conversation.assignee = typeof assignee === "string" ? { type: "user", id: assignee } : null
    for (const later of conversation.asks) later.maybe = true
  })

/** The conversation's first ask past its deadline and not disturbed, if any. */
const lateAsk = (conversation: ConversationModel, now: number, final: boolean) =>
  conversation.asks.find((ask) => !ask.maybe && (final || (ask.deadline !== "end" && ask.deadline < now)))

/**
 * Asks past their deadline must have been answered; at the end, every ask that was not disturbed. Only the
 * conversations asked something are looked at (`World.asking`), in plain code with an effect only to fail: this runs
 * after every step, and an `Effect.gen` per conversation of the run was a visible share of a run's CPU. A failure names
 * the first such conversation in the order they were made, as a look at every conversation would.
 */
export const checkAsks = (world: World, now: number, final: boolean): Effect.Effect<void> =>
  Effect.suspend(() => {
    let failed = false
    for (const conversation of world.asking) {
      const asks = conversation.asks
      for (const ask of [...asks]) {
        const late = final || (ask.deadline !== "end" && ask.deadline < now)
        // Its time has passed without an answer: the job was skipped, as it may be.
        if (ask.maybe && late) asks.splice(asks.indexOf(ask), 1)
        else if (!ask.maybe && late) failed = true
      }
      if (failed) break
      if (final) asks.length = 0
      if (asks.length === 0) world.asking.delete(conversation)
    }
    if (!failed) return Effect.void
    for (const conversation of world.conversations.values()) {
      const ask = lateAsk(conversation, now, final)
      if (ask !== undefined) {
        return broken(
          "every customer message to an active auto_reply agent gets exactly one reply or handoff",
          `${conversation.id}: asked at ${ask.at}, due by ${ask.deadline}`
        )
      }
    }
    return Effect.die(new Error("checkAsks: a late ask that no conversation holds"))
  })
