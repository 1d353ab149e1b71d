/**
 * Conversations and messages: created (unassigned, for a user, or for an agent, which then is the
 * conversation's chat agent), closed and reopened, reprioritised, tagged, marked spam, reassigned within the rules
 * (a chat goes only to its original agent: 400 otherwise; an id of no user or agent: 400), deleted. Customers ask
 * questions; when the conversation's agent answers by itself the ask is recorded for invariants/Replies.ts with
 * the time by which the one reply worker must have answered it.
 */
import { Conversations, CreateConversation, CreateMessage, Messages, UpdateConversation } from "@support-engine/core"
import { Clock, Effect } from "effect"
import type { AgentModel, ConversationModel, Space } from "../Model.js"
import { addConversation, touch } from "../Model.js"
import { QUESTIONS, SLOWEST } from "../Questions.js"
import type { Rng } from "../Rng.js"
import { emailAgentOf, refusedReassign } from "./EmailConversations.js"
import { type AnyCall, type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

const answers = (agent: AgentModel | undefined): AgentModel | undefined =>
  agent !== undefined && agent.active && agent.autoReply && !agent.copilot && !agent.deleted ? agent : undefined

/** The agent that answers customers in this conversation by itself, if any (active, `auto_reply`, no copilot). */
export const answering = (space: Space, c: ConversationModel): AgentModel | undefined => {
  if (c.deleted || c.status !== "open" || c.spam || c.assignee?.type !== "agent") return undefined
  const id = c.assignee.id
  return answers(space.agents.find((a) => a.id === id))
}

/**
 * The conversations of `spaces` an agent answers by itself, in order: `answering` of each, with each workspace's
 * agents looked up by id (the message ops ask this of every conversation of the run, and `answering` searches every
 * agent the workspace ever had, deleted ones too).
 */
export const answeredIn = (
  spaces: ReadonlyArray<Space>
): Array<{ readonly space: Space; readonly c: ConversationModel }> => {
  const answered: Array<{ readonly space: Space; readonly c: ConversationModel }> = []
  for (const space of spaces) {
    let agents: Map<string, AgentModel> | undefined
    for (const c of space.conversations) {
      if (c.deleted || c.status !== "open" || c.spam || c.assignee?.type !== "agent") continue
      if (agents === undefined) {
        agents = new Map()
        // The first of an id, as `find` gives it.
        for (const a of space.agents) if (!agents.has(a.id)) agents.set(a.id, a)
      }
      if (answers(agents.get(c.assignee.id)) !== undefined) answered.push({ space, c })
    }
  }
  return answered
}

const disturb = (c: ConversationModel) => {
  for (const ask of c.asks) ask.maybe = true
}

const createConversation = (sim: Sim, space: Space, rng: Rng) =>
  Effect.gen(function*() {
    if (space.customers.length === 0) return undefined
    const customer = (yield* rng.pick(space.customers)).id
    const live = space.agents.filter((a) => !a.deleted)
    const answers = live.filter((a) => a.active && a.autoReply && !a.copilot)
    const agents = answers.length > 0 && (yield* rng.chance(0.8)) ? answers : live
    const who = yield* rng.int(0, 5)
    const assignee = who === 0 || (who === 1 && space.users.length === 0) || (who >= 2 && agents.length === 0)
      ? null
      : who === 1
      ? { type: "user" as const, id: yield* rng.pick(space.users) }
      : { type: "agent" as const, id: (yield* rng.pick(agents)).id }
    const created = yield* valid(
      sim,
      space,
      "conversation",
      Effect.flatMap(Conversations, (c) =>
        c.create(
          new CreateConversation({
            customer_id: customer,
            channel: "chat",
            assignee_id: assignee?.id ?? null,
            assignee_type: assignee?.type ?? null
          })
        ))
    )
    if (assignee?.type === "agent" && created.agent_id !== assignee.id) {
      return yield* Effect.die(new Error("an agent assignee becomes the chat's agent"))
    }
    addConversation(sim.world, space, {
      id: created.id,
      customer,
      channel: "chat",
      agentId: created.agent_id,
      assignee
    })
    return `conversation ${space.index} ${created.id} ${
      assignee === null ? "unassigned" : `${assignee.type} ${assignee.id}`
    }`
  })

const update = (sim: Sim, space: Space, rng: Rng, c: ConversationModel) =>
  Effect.gen(function*() {
    const call = (input: UpdateConversation) => Effect.flatMap(Conversations, (s) => s.update(c.id, input))
    const probe = { owner: space, read: Effect.flatMap(Conversations, (s) => s.get(c.id)) }
    const choice = yield* rng.int(0, 10)
    switch (choice) {
      case 0: {
        const status = c.status === "open" ? "closed" as const : "open" as const
        yield* valid(sim, space, `conversation ${status}`, call(new UpdateConversation({ status })))
        disturb(c)
        if (status === "open") c.sessionReplies.clear()
        c.status = status
        return `conversation ${c.id} ${status}`
      }
      case 1: {
        const priority = yield* rng.pick(["low", "normal", "high", "urgent"] as const)
        const tags = (yield* rng.chance(0.5)) ? ["billing"] : ["billing", "vip"]
        yield* valid(sim, space, "conversation priority and tags", call(new UpdateConversation({ priority, tags })))
        return `conversation ${c.id} ${priority} ${tags.join(",")}`
      }
      case 2: {
        c.spam = !c.spam
        yield* valid(sim, space, "conversation spam", call(new UpdateConversation({ is_spam: c.spam })))
        disturb(c)
        return `conversation ${c.id} spam=${c.spam}`
      }
      case 3: {
        if (space.users.length === 0) return undefined
        const user = yield* rng.pick(space.users)
        yield* valid(
          sim,
          space,
          "assign to a user",
          call(new UpdateConversation({ assignee_id: user, assignee_type: "user" }))
        )
        disturb(c)
        c.assignee = { type: "user", id: user }
        return `conversation ${c.id} to user ${user}`
      }
      case 4: {
        const original = space.agents.find((a) => a.id === c.agentId && !a.deleted)
        if (original === undefined) {
          yield* valid(sim, space, "unassign", call(new UpdateConversation({ assignee_id: null })))
          disturb(c)
          c.assignee = null
          return `conversation ${c.id} unassigned`
        }
        yield* valid(sim, space, "assign to its agent", call(new UpdateConversation({ assignee_id: original.id })))
        if (c.assignee?.id !== original.id) disturb(c)
        c.assignee = { type: "agent", id: original.id }
        return `conversation ${c.id} to agent ${original.id}`
      }
      case 5: {
        if (c.channel === "email") {
          const email = emailAgentOf(space)
          const wrong = space.agents.find((a) => !a.deleted && !(a === email && a.active))
          return wrong === undefined ? undefined : yield* refusedReassign(sim, space, c, wrong.id)
        }
        const stranger = space.agents.find((a) => a.id !== c.agentId && !a.deleted)
        if (stranger === undefined) return undefined
        return yield* refused(
          sim,
          space,
          "a chat to another agent",
          "InvalidAssigneeType",
          call(new UpdateConversation({ assignee_id: stranger.id })),
          probe
        )
      }
      case 6: {
        const other = otherSpace(sim, space, (s) => s.users)
        if (other === undefined) return undefined
        const foreign = yield* rng.pick(other.users)
        return yield* refused(
          sim,
          space,
          "assign to another workspace's user",
          "InvalidAssignee",
          call(new UpdateConversation({ assignee_id: foreign })),
          probe
        )
      }
      case 7: {
        yield* valid(sim, space, "conversation delete", Effect.flatMap(Conversations, (s) => s.delete(c.id)))
        disturb(c)
        c.deleted = true
        space.conversations.splice(space.conversations.indexOf(c), 1)
        space.messages -= c.messages
        touch(sim.world, space, "conversations")
        touch(sim.world, space, "messages")
        return `conversation delete ${c.id}`
      }
      default: {
        const tags = (yield* rng.chance(0.5)) ? ["later"] : []
        yield* valid(sim, space, "conversation tags", call(new UpdateConversation({ tags })))
        return `conversation ${c.id} tags ${tags.join(",")}`
      }
    }
  })

/**
 * Records a customer's question that `agent` answers by itself, with the time by which the one reply worker
 * must have answered it (`bound`: the question's longest answer time).
 */
export const asked = (sim: Sim, c: ConversationModel, agent: AgentModel, bound: number, now: number) => {
  const world = sim.world
  let by: number | "end" = "end"
  if (world.orphans === 0 || now >= world.orphansDueAt) {
    // The drain this message starts answers the crash's orphans first (each at most the slowest question),
    // then every job in order: whatever was left for the end is done by then too.
    by = Math.max(now, world.workerFreeAt) + world.orphans * SLOWEST + bound
    world.workerFreeAt = by
    if (world.orphans > 0) {
      for (const x of world.conversations.values()) {
        for (const a of x.asks) if (a.deadline === "end") a.deadline = by
      }
      world.orphans = 0
    }
  }
  c.asks.push({ at: now, agent, limitAtAsk: agent.limit, phrasesAtAsk: agent.phrases, deadline: by, maybe: false })
  world.asking.add(c)
}

const lastDeadline = (c: ConversationModel) => c.asks[c.asks.length - 1]?.deadline ?? "none"

const message = (sim: Sim, space: Space, rng: Rng, c: ConversationModel) =>
  Effect.gen(function*() {
    const send = (input: CreateMessage) => Effect.flatMap(Messages, (m) => m.create(c.id, input))
    const choice = yield* rng.int(0, 8)
    const customerGone = !space.customers.some((x) => x.id === c.customer)
    if (choice <= 4) {
      if (customerGone) {
        return yield* refused(
          sim,
          space,
          "a message from a deleted customer",
          "InvalidSender",
          send(new CreateMessage({ sender_type: "customer", sender_id: c.customer, content: "hello?" }))
        )
      }
      // A question while an earlier one may be skipped would make it unclear which one an answer is for.
      if (c.asks.some((a) => a.maybe)) return undefined
      const question = yield* rng.pick(QUESTIONS)
      const agent = answering(space, c)
      const now = yield* Clock.currentTimeMillis
      const sent = yield* valid(
        sim,
        space,
        "customer message",
        send(new CreateMessage({ sender_type: "customer", sender_id: c.customer, content: question.text }))
      )
      c.messages++
      space.messages++
      touch(sim.world, space, "messages")
      if (agent !== undefined) asked(sim, c, agent, question.bound, now)
      return `ask ${c.id} ${sent.id}${agent === undefined ? "" : ` to ${agent.id} by ${lastDeadline(c)}`}`
    }
    if (choice === 5 && space.users.length > 0) {
      const user = yield* rng.pick(space.users)
      yield* valid(
        sim,
        space,
        "user message",
        send(new CreateMessage({ sender_type: "user", sender_id: user, content: "On it." }))
      )
      c.messages++
      space.messages++
      touch(sim.world, space, "messages")
      return `user message ${c.id}`
    }
    if (choice === 6) {
      const stranger = space.customers.find((x) => x.id !== c.customer)
      if (stranger === undefined) return undefined
      return yield* refused(
        sim,
        space,
        "a message from another customer",
        "InvalidSender",
        send(new CreateMessage({ sender_type: "customer", sender_id: stranger.id, content: "me too" }))
      )
    }
    const other = otherSpace(sim, space, (s) => s.conversations)
    if (other === undefined) return undefined
    const foreign = yield* rng.pick(other.conversations)
    return yield* refused(
      sim,
      space,
      "a message in another workspace's conversation",
      "NotFound",
      Effect.flatMap(Messages, (m) => m.create(foreign.id, new CreateMessage({ sender_type: "system", content: "x" }))),
      {
        owner: other,
        read: Effect.flatMap(Conversations, (s) => s.get(foreign.id))
      }
    )
  })

export const conversation: Op = {
  name: "conversation",
  weight: 20,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 7)
      if (choice <= 2 || space.conversations.length === 0) return yield* createConversation(sim, space, rng)
      if (choice === 3) {
        const other = otherSpace(sim, space, (s) => s.customers)
        if (other === undefined) return undefined
        const foreign = (yield* rng.pick(other.customers)).id
        return yield* refused(
          sim,
          space,
          "a conversation for another workspace's customer",
          "ValidationError",
          Effect.flatMap(Conversations, (c) => c.create(new CreateConversation({ customer_id: foreign })))
        )
      }
      if (choice === 4) {
        const other = otherSpace(sim, space, (s) => s.conversations)
        if (other === undefined) return undefined
        const foreign = yield* rng.pick(other.conversations)
        const calls: ReadonlyArray<readonly [string, AnyCall]> = [
          ["get", Effect.flatMap(Conversations, (c) => c.get(foreign.id))],
          [
            "update",
            Effect.flatMap(Conversations, (c) => c.update(foreign.id, new UpdateConversation({ status: "closed" })))
          ],
          ["delete", Effect.flatMap(Conversations, (c) => c.delete(foreign.id))]
        ]
        const [verb, call] = yield* rng.pick(calls)
        return yield* refused(sim, space, `cross-workspace conversation ${verb}`, "NotFound", call, {
          owner: other,
          read: Effect.flatMap(Conversations, (c) => c.get(foreign.id))
        })
      }
      return yield* update(sim, space, rng, yield* rng.pick(space.conversations))
    })
}

export const customerMessage: Op = {
  name: "message",
  weight: 32,
  run: (sim, rng) =>
    Effect.gen(function*() {
      // Mostly to conversations an agent answers, where there is the most to check.
      const answered = answeredIn(sim.world.spaces)
      if (answered.length > 0 && (yield* rng.chance(0.7))) {
        const { c, space } = yield* rng.pick(answered)
        return yield* message(sim, space, rng, c)
      }
      const space = yield* rng.pick(sim.world.spaces)
      if (space.conversations.length === 0) return undefined
      return yield* message(sim, space, rng, yield* rng.pick(space.conversations))
    })
}
