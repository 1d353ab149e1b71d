import { assert, describe, it } from "@effect/vitest"
import {
  Agent,
  AgentId,
  AgentRepo,
  Agents,
  CreateAgent,
  CreateUser,
  decodeRequest,
  ListAgents,
  UpdateAgent,
  Users,
  Workspaces
} from "@support-engine/core"
import { ConfigProvider, DateTime, Duration, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** Agents (D23, D27's email agent, D34, D35). */
export const agentsSuite = (adapter: Adapter) =>
  describe(`Agents (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("creates with the D23 defaults and the configured default model; slugs are unique", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const agents = yield* Agents
        yield* Effect.gen(function*() {
          const a = yield* agents.create(new CreateAgent({ name: "Support Bot" }))
          assert.deepInclude({ ...a }, {
            name: "Support Bot",
            slug: "support-bot",
            description: "",
            avatar_url: null,
            max_messages_per_session: 100,
            tone: "professional",
            response_length: "medium",
            is_active: true,
            is_copilot: false,
            model: "gpt-4o-mini"
          })
          assert.deepStrictEqual(a.prohibited_phrases, [])
          const b = yield* agents.create(new CreateAgent({ name: "support  bot!" }))
          const c = yield* agents.create(new CreateAgent({ name: "Support Bot" }))
          assert.deepStrictEqual([b.slug, c.slug], ["support-bot-2", "support-bot-3"])
          assert.deepStrictEqual(yield* agents.get(a.id), a)
          const renamed = yield* agents.update(a.id, new UpdateAgent({ name: "Helper" }))
          assert.strictEqual(renamed.slug, "support-bot")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("concurrent creates with one name get distinct slugs; the unique index is the backstop (D23)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const agents = yield* Agents
        const created = yield* Effect.all(
          Array.from({ length: 4 }, () => agents.create(new CreateAgent({ name: "Race" }))),
          { concurrency: "unbounded" }
        ).pipe(as(principal))
        assert.deepStrictEqual(created.map((a) => a.slug).sort(), ["race", "race-2", "race-3", "race-4"])
        const page = yield* agents.list(new ListAgents({})).pipe(as(principal))
        assert.strictEqual(page.meta.total, 4)
        assert.deepStrictEqual((yield* recordedEvents.pipe(as(principal))).map((e) => e.type), [
          "agent.created",
          "agent.created",
          "agent.created",
          "agent.created"
        ])
        // Straight to the port, past the service's choice of a free slug: the index refuses with the one conflict
        // convention, UniqueViolation naming the key.
        const copy = new Agent({ ...created[0]!, id: AgentId.make("00000000-0000-7000-8000-000000000005") })
        const error = yield* Effect.flip((yield* AgentRepo).insert(workspace.id, copy))
        assert.deepStrictEqual([error._tag, error._tag === "UniqueViolation" && error.key], [
          "UniqueViolation",
          "agents.slug"
        ])
      }).pipe(provide))

    it.effect("the model comes from SUPPORT_DEFAULT_AGENT_MODEL and an update may not send one (D13, D23)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot" })).pipe(as(principal))
        assert.strictEqual(agent.model, "house-model-1")
        const error = yield* Effect.flip(decodeRequest(UpdateAgent)({ name: "X", model: "gpt-5" }))
        assert.deepStrictEqual(error.errors, { model: ["is prohibited"] })
        const unknownIgnored = yield* decodeRequest(UpdateAgent)({ name: "X", colour: "red" })
        assert.strictEqual(unknownIgnored.name, "X")
      }).pipe(
        provide,
        // Over the environment, which holds what the storage needs (SUPPORT_SECRET_KEY on PostgreSQL).
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ SUPPORT_DEFAULT_AGENT_MODEL: "house-model-1" }).pipe(
            ConfigProvider.orElse(ConfigProvider.fromEnv())
          )
        )
      ))

    it.effect("limits at the bound and one past it; strings are not numbers or booleans (D13, D33)", () =>
      Effect.gen(function*() {
        const decode = decodeRequest(CreateAgent)
        for (
          const [field, max] of [["name", 255], ["description", 500], ["tone", 255], ["response_length", 255]] as const
        ) {
          yield* decode({ name: "n", [field]: "x".repeat(max) })
          const error = yield* Effect.flip(decode({ name: "n", [field]: "x".repeat(max + 1) }))
          assert.deepStrictEqual(Object.keys(error.errors), [field])
        }
        for (const ok of [1, 1000]) yield* decode({ name: "n", max_messages_per_session: ok })
        for (const bad of [0, 1001, 1.5, "10"]) {
          const error = yield* Effect.flip(decode({ name: "n", max_messages_per_session: bad }))
          assert.deepStrictEqual(Object.keys(error.errors), ["max_messages_per_session"])
        }
        const flag = yield* Effect.flip(decode({ name: "n", is_active: "true" }))
        assert.deepStrictEqual(Object.keys(flag.errors), ["is_active"])
        const missing = yield* Effect.flip(decode({}))
        assert.deepStrictEqual(Object.keys(missing.errors), ["name"])
        const channel = yield* Effect.flip(decode({
          name: "n",
          escalation_rules: [{ channel: "sms", rule: "r", escalate_to: "00000000-0000-7000-8000-000000000000" }]
        }))
        assert.deepStrictEqual(Object.keys(channel.errors), ["escalation_rules.0.channel"])
      }))

    it.effect("phrases and escalation rules replace whole lists; escalate_to must be a user of the workspace", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const users = yield* Users
        const agents = yield* Agents
        const ours = yield* users.create(
          new CreateUser({ workspace_id: mine.workspace.id, name: "Sam", email: "s@x.io" })
        )
        const foreign = yield* users.create(
          new CreateUser({ workspace_id: theirs.workspace.id, name: "Kim", email: "k@x.io" })
        )
        yield* Effect.gen(function*() {
          const agent = yield* agents.create(
            new CreateAgent({
              name: "Bot",
              prohibited_phrases: [{ phrase: "refund" }, { phrase: "lawsuit" }],
              escalation_rules: [{ channel: "email", rule: "angry", escalate_to: ours.id }]
            })
          )
          assert.deepStrictEqual(agent.prohibited_phrases.map((p) => p.phrase), ["refund", "lawsuit"])
          assert.strictEqual(agent.escalation_rules[0]!.escalate_to, ours.id)
          yield* TestClock.adjust(Duration.seconds(1))
          const replaced = yield* agents.update(agent.id, new UpdateAgent({ prohibited_phrases: [{ phrase: "free" }] }))
          assert.deepStrictEqual(replaced.prohibited_phrases.map((p) => p.phrase), ["free"])
          assert.deepStrictEqual(replaced.escalation_rules, agent.escalation_rules)
          const error = yield* Effect.flip(agents.update(
            agent.id,
            new UpdateAgent({
              escalation_rules: [
                { channel: "chat", rule: "ok", escalate_to: ours.id },
                { channel: "chat", rule: "bad", escalate_to: foreign.id }
              ]
            })
          ))
          assert.strictEqual(error._tag, "ValidationError")
          assert.deepStrictEqual(error._tag === "ValidationError" && Object.keys(error.errors), [
            "escalation_rules.1.escalate_to"
          ])
          assert.deepStrictEqual(yield* agents.get(agent.id), replaced)
          const refused = yield* Effect.flip(agents.create(
            new CreateAgent({
              name: "Other",
              escalation_rules: [{ channel: "email", rule: "r", escalate_to: foreign.id }]
            })
          ))
          assert.deepStrictEqual(refused._tag === "ValidationError" && Object.keys(refused.errors), [
            "escalation_rules.0.escalate_to"
          ])
          assert.strictEqual((yield* agents.list(new ListAgents({}))).meta.total, 1)
          assert.deepStrictEqual((yield* recordedEvents).map((e) => e.type), ["agent.created", "agent.updated"])
        }).pipe(as(mine.principal))
      }).pipe(provide))

    it.effect("copilot agents are protected: 403 FORBIDDEN on update and delete (D23)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const agents = yield* Agents
        yield* Effect.gen(function*() {
          const copilot = yield* agents.create(new CreateAgent({ name: "Copilot" }), { copilot: true })
          assert.isTrue(copilot.is_copilot)
          for (
            const error of [
              yield* Effect.flip(agents.update(copilot.id, new UpdateAgent({ name: "X" }))),
              yield* Effect.flip(agents.delete(copilot.id))
            ]
          ) {
            assert.deepInclude({ _tag: error._tag, status: error.status, code: error.code }, {
              _tag: "Forbidden",
              status: 403,
              code: "FORBIDDEN"
            })
          }
          assert.deepStrictEqual(yield* agents.get(copilot.id), copilot)
          assert.deepStrictEqual((yield* recordedEvents).map((e) => e.type), ["agent.created"])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("events: created, updated only on change, deleted {id}; delete clears the email agent (D34, D35)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const agents = yield* Agents
        const agent = yield* agents.create(new CreateAgent({ name: "Mail" })).pipe(as(principal))
        const set = yield* agents.setEmailAgent(workspace.id, agent.id)
        assert.strictEqual(set.email_agent_id, agent.id)
        yield* Effect.gen(function*() {
          const unchanged = yield* agents.update(agent.id, new UpdateAgent({ name: "Mail", is_active: true }))
          assert.deepStrictEqual(unchanged, agent)
          yield* TestClock.adjust(Duration.seconds(1))
          const updated = yield* agents.update(agent.id, new UpdateAgent({ is_active: false }))
          assert.isTrue(DateTime.isGreaterThan(updated.updated_at, agent.updated_at))
          yield* agents.delete(agent.id)
          const events = yield* recordedEvents
          assert.deepStrictEqual(events.map((e) => e.type), ["agent.created", "agent.updated", "agent.deleted"])
          // D35: the agent exactly as the API returns it (model included), then `{"id"}`; D44: the actor.
          assert.deepStrictEqual(events[0]!.data, Schema.encodeSync(Agent)(agent))
          assert.deepStrictEqual(events[1]!.data, Schema.encodeSync(Agent)(updated))
          assert.deepStrictEqual(events[2]!.data, { id: agent.id })
          for (const e of events) assert.deepStrictEqual({ ...e.actor }, { ...principal.actor })
        }).pipe(as(principal))
        assert.strictEqual((yield* (yield* Workspaces).get(workspace.id)).email_agent_id, null)
        const foreign = yield* Effect.flip(agents.setEmailAgent(workspace.id, agent.id))
        assert.strictEqual(foreign._tag, "NotFound")
      }).pipe(provide))

    it.effect("list filters is_active with exact totals (query strings or booleans)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const agents = yield* Agents
        yield* Effect.gen(function*() {
          for (const [i, active] of [true, false, true].entries()) {
            yield* agents.create(new CreateAgent({ name: `a${i}`, is_active: active }))
            yield* TestClock.adjust(Duration.millis(1))
          }
          const active = yield* agents.list(yield* decodeRequest(ListAgents)({ is_active: "true" }))
          assert.deepStrictEqual(active.data.map((a) => a.name), ["a2", "a0"])
          assert.strictEqual(active.meta.total, 2)
          const inactive = yield* agents.list(new ListAgents({ is_active: false }))
          assert.deepStrictEqual([inactive.data.map((a) => a.name), inactive.meta.total], [["a1"], 1])
          const all = yield* agents.list(new ListAgents({ per_page: 1, page: 3 }))
          assert.deepStrictEqual([all.data.map((a) => a.name), all.meta.total, all.meta.last_page], [["a0"], 3, 3])
          const bad = yield* Effect.flip(decodeRequest(ListAgents)({ is_active: "yes" }))
          assert.deepStrictEqual(Object.keys(bad.errors), ["is_active"])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("another workspace's agent is not found; read tokens cannot write (D10, D11)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const agents = yield* Agents
        const agent = yield* agents.create(new CreateAgent({ name: "Bot" })).pipe(as(mine.principal))
        for (const id of [agent.id, AgentId.make("00000000-0000-7000-8000-000000000003")]) {
          for (
            const error of yield* Effect.all([
              Effect.flip(agents.get(id)),
              Effect.flip(agents.update(id, new UpdateAgent({ name: "X" }))),
              Effect.flip(agents.delete(id))
            ]).pipe(as(theirs.principal))
          ) assert.strictEqual(error._tag, "NotFound")
        }
        const reader = { ...mine.principal, abilities: ["external-api:read" as const] }
        yield* agents.get(agent.id).pipe(as(reader))
        const denied = yield* Effect.flip(agents.delete(agent.id)).pipe(as(reader))
        assert.strictEqual(denied._tag, "InsufficientAbility")
      }).pipe(provide))
  })
