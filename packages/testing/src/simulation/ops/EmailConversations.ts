/**
 * Email conversations and the workspace's email agent (set by provisioning as `workspace
 * set-email-agent` does): an email conversation is unassigned, a user's, or the email agent's while that agent is
 * active; any other agent is 400 `INVALID_ASSIGNEE_TYPE`, on create and on reassignment, and `agent_id` (the chat
 * agent) is refused on an email conversation (422). Setting another workspace's agent as the email agent is a 404.
 * Email conversations join the others in the model: messages, updates, deletes and the agent's answers (an
 * active `auto_reply` email agent answers by itself) go through ops/Conversations.ts and the reply checks.
 */
import {
  type AgentId,
  Agents,
  Conversations,
  CreateConversation,
  UpdateConversation,
  Workspaces
} from "@support-engine/core"
import { Effect } from "effect"
import type { AgentModel, ConversationModel, Space } from "../Model.js"
import { addConversation } from "../Model.js"
import type { Rng } from "../Rng.js"
import { foreignAgent, type Op, refused, type Sim, valid } from "./Op.js"

/** The workspace's email agent, if it still exists (deleting it clears the setting). */
export const emailAgentOf = (space: Space): AgentModel | undefined =>
  space.agents.find((a) => a.id === space.emailAgent && !a.deleted)

/** An agent an email conversation may not be given: any but the active email agent. */
const wrongAgent = (space: Space, rng: Rng) => {
  const email = emailAgentOf(space)
  const wrong = space.agents.filter((a) => !a.deleted && !(a === email && a.active))
  return wrong.length === 0 ? Effect.succeed(undefined) : rng.pick(wrong)
}

const setEmailAgent = (sim: Sim, space: Space, rng: Rng) =>
  Effect.gen(function*() {
    const live = space.agents.filter((a) => !a.deleted)
    if ((yield* rng.chance(0.2)) || live.length === 0) {
      const foreign = yield* foreignAgent(sim, space, rng)
      if (foreign === undefined) return undefined
      return yield* refused(
        sim,
        space,
        "another workspace's agent as the email agent",
        "NotFound",
        Effect.flatMap(Agents, (s) => s.setEmailAgent(space.id, foreign)),
        { owner: space, read: Effect.flatMap(Workspaces, (w) => w.get(space.id)) }
      )
    }
    const agent = yield* rng.pick(live)
    const set = yield* valid(
      sim,
      space,
      "set the email agent",
      Effect.flatMap(Agents, (s) => s.setEmailAgent(space.id, agent.id))
    )
    if (set.email_agent_id !== agent.id) return yield* Effect.die(new Error("the email agent is the one set"))
    space.emailAgent = agent.id
    return `email agent ${space.index} ${agent.id}`
  })

const create = (sim: Sim, space: Space, rng: Rng) =>
  Effect.gen(function*() {
    if (space.customers.length === 0) return undefined
    const customer = (yield* rng.pick(space.customers)).id
    const email = emailAgentOf(space)
    const who = yield* rng.int(0, 4)
    const user = who === 1 && space.users.length > 0 ? yield* rng.pick(space.users) : undefined
    const assignee: ConversationModel["assignee"] = who >= 2 && email !== undefined && email.active
      ? { type: "agent", id: email.id }
      : user !== undefined
      ? { type: "user", id: user }
      : null
    const created = yield* valid(
      sim,
      space,
      "email conversation",
      Effect.flatMap(Conversations, (c) =>
        c.create(
          new CreateConversation({
            customer_id: customer,
            channel: "email",
            subject: "Order",
            assignee_id: assignee?.id ?? null,
            assignee_type: assignee?.type ?? null
          })
        ))
    )
    if (created.channel !== "email" || created.agent_id !== null || created.assignee_id !== (assignee?.id ?? null)) {
      return yield* Effect.die(new Error("an email conversation is created as asked, with no chat agent"))
    }
    addConversation(sim.world, space, { id: created.id, customer, channel: "email", agentId: null, assignee })
    return `email conversation ${space.index} ${created.id} ${
      assignee === null ? "unassigned" : `${assignee.type} ${assignee.id}`
    }`
  })

/** Refusals on create: the chat agent named on an email conversation, or an agent that is not the email agent. */
const refusedCreate = (sim: Sim, space: Space, rng: Rng, chatAgent: boolean) =>
  Effect.gen(function*() {
    if (space.customers.length === 0) return undefined
    const customer = (yield* rng.pick(space.customers)).id
    const agent = yield* wrongAgent(space, rng)
    if (agent === undefined) return undefined
    const input = chatAgent
      ? new CreateConversation({ customer_id: customer, channel: "email", agent_id: agent.id as AgentId })
      : new CreateConversation({ customer_id: customer, channel: "email", assignee_id: agent.id })
    return yield* refused(
      sim,
      space,
      chatAgent ? "an email conversation with a chat agent" : "an email conversation for an agent not its email agent",
      chatAgent ? "ValidationError" : "InvalidAssigneeType",
      Effect.flatMap(Conversations, (c) => c.create(input))
    )
  })

/** An email conversation given to the email agent, or refused for another agent (the conversation unchanged). */
const reassign = (sim: Sim, space: Space, rng: Rng) =>
  Effect.gen(function*() {
    const emails = space.conversations.filter((c) => c.channel === "email")
    if (emails.length === 0) return undefined
    const c = yield* rng.pick(emails)
    const email = emailAgentOf(space)
    const call = (assignee: string) =>
      Effect.flatMap(Conversations, (s) => s.update(c.id, new UpdateConversation({ assignee_id: assignee })))
    if ((yield* rng.chance(0.5)) && email !== undefined && email.active) {
      yield* valid(sim, space, "an email conversation to its email agent", call(email.id))
      if (c.assignee?.id !== email.id) { for (const ask of c.asks) ask.maybe = true }
      c.assignee = { type: "agent", id: email.id }
      return `conversation ${c.id} to email agent ${email.id}`
    }
    const wrong = yield* wrongAgent(space, rng)
    if (wrong === undefined) return undefined
    return yield* refusedReassign(sim, space, c, wrong.id)
  })

/** Reassigning an email conversation to an agent that is not the active email agent: 400, nothing changes. */
export const refusedReassign = (sim: Sim, space: Space, c: ConversationModel, agent: AgentId) =>
  refused(
    sim,
    space,
    "an email conversation to an agent not its email agent",
    "InvalidAssigneeType",
    Effect.flatMap(Conversations, (s) => s.update(c.id, new UpdateConversation({ assignee_id: agent }))),
    { owner: space, read: Effect.flatMap(Conversations, (s) => s.get(c.id)) }
  )

export const emailConversation: Op = {
  name: "email conversation",
  weight: 6,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 9)
      if (choice <= 1) return yield* setEmailAgent(sim, space, rng)
      if (choice <= 4) return yield* create(sim, space, rng)
      if (choice <= 6) return yield* refusedCreate(sim, space, rng, choice === 5)
      return yield* reassign(sim, space, rng)
    })
}
