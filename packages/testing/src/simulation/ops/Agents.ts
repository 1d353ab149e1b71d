/**
 * AI agents: created with or without `auto_reply`, message limits, prohibited phrases and escalation
 * rules (whose `escalate_to` must be a user of the workspace, else 422); updated (switched off and on, limits and
 * lists replaced) and deleted; copilots are protected (403); another workspace's agent is a 404.
 */
import { Agents, CreateAgent, UpdateAgent, type UserId } from "@support-engine/core"
import { Effect } from "effect"
import type { AgentModel, Space } from "../Model.js"
import { PHRASES, RULE } from "../Questions.js"
import type { Rng } from "../Rng.js"
import { createArticle } from "./Knowledge.js"
import { type AnyCall, type Op, otherSpace, refused, type Sim, valid } from "./Op.js"

/** Pending customer messages to this agent may now be skipped rather than answered (the job re-reads it). */
export const disturbAgent = (sim: Sim, agent: AgentModel) => {
  for (const conversation of sim.world.conversations.values()) {
    for (const ask of conversation.asks) if (ask.agent === agent) ask.maybe = true
  }
}

const settings = (space: Space, rng: Rng) =>
  Effect.gen(function*() {
    const limit = (yield* rng.chance(0.4)) ? yield* rng.int(1, 4) : 1000
    const phrases = (yield* rng.chance(0.4)) ? [yield* rng.pick(PHRASES)] : []
    const rules = space.users.length > 0 && (yield* rng.chance(0.3))
      ? [{ channel: "chat" as const, rule: RULE, escalateTo: yield* rng.pick(space.users) }]
      : []
    return { limit, phrases, rules }
  })

const ruleInput = (rules: AgentModel["rules"]) =>
  rules.map((r) => ({ channel: r.channel, rule: r.rule, escalate_to: r.escalateTo }))

export const agent: Op = {
  name: "agent",
  weight: 12,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const live = space.agents.filter((a) => !a.deleted)
      const choice = yield* rng.int(0, 10)
      if (choice <= 2 || live.length === 0) {
        if (live.length >= 4) return undefined
        const copilot = yield* rng.chance(0.1)
        const { limit, phrases, rules } = yield* settings(space, rng)
        const autoReply = yield* rng.chance(0.8)
        const created = yield* valid(
          sim,
          space,
          "agent",
          Effect.flatMap(Agents, (a) =>
            a.create(
              new CreateAgent({
                name: `Bot ${space.agents.length}`,
                auto_reply: autoReply,
                max_messages_per_session: limit,
                prohibited_phrases: phrases.map((phrase) => ({ phrase })),
                escalation_rules: ruleInput(rules)
              }),
              { copilot }
            ))
        )
        space.agents.push({
          id: created.id,
          copilot,
          active: true,
          autoReply,
          limit,
          phrases,
          rules,
          deleted: false
        })
        sim.world.touched.add(`${space.index}:agents`)
        // Something to answer from: an article of the knowledge base, published (others may be drafts).
        yield* createArticle(sim, space, "published")
        return `agent ${space.index} ${created.id}${copilot ? " copilot" : ""} auto_reply=${autoReply} limit=${limit}`
      }
      const target = yield* rng.pick(live)
      const update = (input: UpdateAgent) => Effect.flatMap(Agents, (a) => a.update(target.id, input))
      const probe = { owner: space, read: Effect.flatMap(Agents, (a) => a.get(target.id)) }
      if (target.copilot && choice <= 7) {
        const call: AnyCall = choice % 2 === 0
          ? update(new UpdateAgent({ description: "changed" }))
          : Effect.flatMap(Agents, (a) => a.delete(target.id))
        return yield* refused(sim, space, "changing a copilot", "Forbidden", call, probe)
      }
      switch (choice) {
        case 3:
        case 4: {
          const active = yield* rng.chance(0.7)
          const autoReply = yield* rng.chance(0.8)
          yield* valid(
            sim,
            space,
            "agent switch",
            update(new UpdateAgent({ is_active: active, auto_reply: autoReply }))
          )
          if (active !== target.active || autoReply !== target.autoReply) disturbAgent(sim, target)
          target.active = active
          target.autoReply = autoReply
          return `agent ${target.id} active=${active} auto_reply=${autoReply}`
        }
        case 5: {
          const { limit, phrases, rules } = yield* settings(space, rng)
          yield* valid(
            sim,
            space,
            "agent rules",
            update(
              new UpdateAgent({
                max_messages_per_session: limit,
                prohibited_phrases: phrases.map((phrase) => ({ phrase })),
                escalation_rules: ruleInput(rules)
              })
            )
          )
          disturbAgent(sim, target)
          target.limit = limit
          target.phrases = phrases
          target.rules = rules
          return `agent ${target.id} limit=${limit} phrases=${phrases.join("|")} rules=${rules.length}`
        }
        case 6: {
          yield* valid(sim, space, "agent delete", Effect.flatMap(Agents, (a) => a.delete(target.id)))
          disturbAgent(sim, target)
          target.deleted = true
          sim.world.touched.add(`${space.index}:agents`)
          return `agent delete ${target.id}`
        }
        case 7: {
          const other = otherSpace(sim, space, (s) => s.users)
          if (other === undefined) return undefined
          const stranger: UserId = yield* rng.pick(other.users)
          return yield* refused(
            sim,
            space,
            "escalation to another workspace's user",
            "ValidationError",
            update(new UpdateAgent({ escalation_rules: [{ channel: "chat", rule: RULE, escalate_to: stranger }] })),
            probe
          )
        }
        default: {
          const other = otherSpace(sim, space, (s) => s.agents.filter((a) => !a.deleted))
          if (other === undefined) return undefined
          const foreign = (yield* rng.pick(other.agents.filter((a) => !a.deleted))).id
          const calls: ReadonlyArray<readonly [string, AnyCall]> = [
            ["get", Effect.flatMap(Agents, (a) => a.get(foreign))],
            ["update", Effect.flatMap(Agents, (a) => a.update(foreign, new UpdateAgent({ is_active: false })))],
            ["delete", Effect.flatMap(Agents, (a) => a.delete(foreign))]
          ]
          const [verb, call] = yield* rng.pick(calls)
          return yield* refused(sim, space, `cross-workspace agent ${verb}`, "NotFound", call, {
            owner: other,
            read: Effect.flatMap(Agents, (a) => a.get(foreign))
          })
        }
      }
    })
}
