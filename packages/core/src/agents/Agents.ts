/**
 * AI agents. The model comes from configuration (`SUPPORT_DEFAULT_AGENT_MODEL`, default `gpt-4o-mini`) and
 * is never changed by an update; copilot agents are protected (403 FORBIDDEN on update and delete).
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import { encodeData, Events } from "../events/Events.js"
import { Forbidden, orNotFound, PersistenceError, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { AgentId, EscalationRuleId, ProhibitedPhraseId, type UserId, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { UserRepo, WorkspaceRepo } from "../workspaces/WorkspaceRepo.js"
import { Workspaces } from "../workspaces/Workspaces.js"
import {
  Agent,
  type CreateAgent,
  EscalationRule,
  type ListAgents,
  ProhibitedPhrase,
  slugify,
  type UpdateAgent
} from "./Agent.js"
import { AgentRepo } from "./AgentRepo.js"

/** Every operation here acts on agents: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("agents")

/** How many times a create is rerun when concurrent creates of the same name collide on a slug. */
const SLUG_RETRIES = 20

export interface CreateAgentOptions {
  /** Creates a copilot agent: an engine-level choice for hosts, not an API field (`is_copilot` is response only). */
  readonly copilot?: boolean
}

export class Agents extends Context.Service<Agents>()("@support-engine/core/Agents", {
  make: Effect.gen(function*() {
    const repo = yield* AgentRepo
    const users = yield* UserRepo
    const workspaceRepo = yield* WorkspaceRepo
    const workspaces = yield* Workspaces
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events
    const guard = writeGuard(yield* RowLocks, "agents", Agent, "Agent")
    const defaultModel = yield* Config.String("SUPPORT_DEFAULT_AGENT_MODEL").pipe(Config.withDefault("gpt-4o-mini"))

    const find = (workspaceId: WorkspaceId, id: AgentId) => repo.findById(workspaceId, id).pipe(orNotFound("Agent"))

    /** `support-bot`, then `support-bot-2`, `support-bot-3`, …: the first free one in the workspace. */
    const freeSlug = (workspaceId: WorkspaceId, name: string) =>
      Effect.map(repo.slugsLike(workspaceId, slugify(name)), (taken) => {
        const base = slugify(name)
        const used = new Set(taken)
        if (!used.has(base)) return base
        let n = 2
        while (used.has(`${base}-${n}`)) n++
        return `${base}-${n}`
      })

    const phrases = (input: ReadonlyArray<{ readonly phrase: string }>) =>
      Effect.forEach(input, ({ phrase }) =>
        Effect.gen(function*() {
          const at = yield* now
          return new ProhibitedPhrase({
            id: ProhibitedPhraseId.make(yield* ids.uuid),
            phrase,
            created_at: at,
            updated_at: at
          })
        }))

    /** Escalation targets must be users of the workspace: a 422 on the offending entry. */
    const rules = (
      workspaceId: WorkspaceId,
      input: ReadonlyArray<{ readonly channel: "email" | "chat"; readonly rule: string; readonly escalate_to: UserId }>
    ) =>
      Effect.gen(function*() {
        const errors: Record<string, Array<string>> = {}
        for (const [i, rule] of input.entries()) {
          if (Option.isNone(yield* users.findById(workspaceId, rule.escalate_to))) {
            errors[`escalation_rules.${i}.escalate_to`] = ["The selected escalate_to is not a user of this workspace."]
          }
        }
        if (Object.keys(errors).length > 0) return yield* new ValidationError({ errors })
        return yield* Effect.forEach(input, (rule) =>
          Effect.gen(function*() {
            const at = yield* now
            return new EscalationRule({
              id: EscalationRuleId.make(yield* ids.uuid),
              ...rule,
              created_at: at,
              updated_at: at
            })
          }))
      })

    const create = Tracing.fn("Agents.create")(function*(input: CreateAgent, options: CreateAgentOptions = {}) {
      const principal = yield* canWrite
      return yield* tx.withTransaction(Effect.gen(function*() {
        const at = yield* now
        const agent = new Agent({
          id: AgentId.make(yield* ids.uuid),
          name: input.name,
          slug: yield* freeSlug(principal.workspaceId, input.name),
          description: input.description ?? "",
          avatar_url: input.avatar_url ?? null,
          max_messages_per_session: input.max_messages_per_session ?? 100,
          tone: input.tone ?? "professional",
          response_length: input.response_length ?? "medium",
          is_active: input.is_active ?? true,
          is_copilot: options.copilot ?? false,
          auto_reply: input.auto_reply ?? false,
          model: defaultModel,
          prohibited_phrases: yield* phrases(input.prohibited_phrases ?? []),
          escalation_rules: yield* rules(principal.workspaceId, input.escalation_rules ?? []),
          created_at: at,
          updated_at: at
        })
        yield* repo.insert(principal.workspaceId, agent)
        yield* events.record("agent.created", encodeData(Agent, agent))
        return agent
      })).pipe(
        // A concurrent create took the slug between our read and our insert (PostgreSQL runs transactions side by
        // side): the whole transaction rolled back, so run it again; it sees the other agent and picks the next slug.
        Effect.retry({ while: (e) => e._tag === "UniqueViolation", times: SLUG_RETRIES }),
        Effect.catchTag(
          "UniqueViolation",
          (e) => Effect.fail(new PersistenceError({ reason: `${e.key}: no free slug after ${SLUG_RETRIES} retries` }))
        )
      )
    })

    const get = Tracing.fn("Agents.get")(function*(id: AgentId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const protectedAgent = new Forbidden({ message: "Copilot agents cannot be modified through the API." })

    /** Slugs are stable: a rename keeps the slug, so links that use it keep working. */
    const update = Tracing.fn("Agents.update")(function*(id: AgentId, input: UpdateAgent, options?: WriteOptions) {
      const principal = yield* canWrite
      return yield* tx.withTransaction(Effect.gen(function*() {
        const current = yield* guard.read(options, principal.workspaceId, id, find(principal.workspaceId, id))
        if (current.is_copilot) return yield* protectedAgent
        const scalars = {
          name: input.name ?? current.name,
          description: input.description ?? current.description,
          avatar_url: input.avatar_url === undefined ? current.avatar_url : input.avatar_url,
          max_messages_per_session: input.max_messages_per_session ?? current.max_messages_per_session,
          tone: input.tone ?? current.tone,
          response_length: input.response_length ?? current.response_length,
          is_active: input.is_active ?? current.is_active,
          auto_reply: input.auto_reply ?? current.auto_reply
        }
        const scalarChanged = (Object.keys(scalars) as Array<keyof typeof scalars>).some((k) =>
          scalars[k] !== current[k]
        )
        const samePhrases = input.prohibited_phrases === undefined ||
          (input.prohibited_phrases.length === current.prohibited_phrases.length &&
            input.prohibited_phrases.every((p, i) => p.phrase === current.prohibited_phrases[i]!.phrase))
        const sameRules = input.escalation_rules === undefined ||
          (input.escalation_rules.length === current.escalation_rules.length &&
            input.escalation_rules.every((r, i) => {
              const c = current.escalation_rules[i]!
              return r.channel === c.channel && r.rule === c.rule && r.escalate_to === c.escalate_to
            }))
        if (!scalarChanged && samePhrases && sameRules) return current
        const updated = new Agent({
          ...current,
          ...scalars,
          prohibited_phrases: samePhrases ? current.prohibited_phrases : yield* phrases(input.prohibited_phrases!),
          escalation_rules: sameRules
            ? current.escalation_rules
            : yield* rules(principal.workspaceId, input.escalation_rules!),
          updated_at: yield* now
        })
        yield* repo.update(principal.workspaceId, updated)
        yield* events.record("agent.updated", encodeData(Agent, updated))
        return updated
      }))
    })

    /** Deleting the workspace's email agent also clears `email_agent_id`, in the same transaction. */
    const remove = Tracing.fn("Agents.delete")(function*(id: AgentId, options?: WriteOptions) {
      const principal = yield* canWrite
      yield* tx.withTransaction(Effect.gen(function*() {
        const current = yield* guard.read(options, principal.workspaceId, id, find(principal.workspaceId, id))
        if (current.is_copilot) return yield* protectedAgent
        const workspace = yield* workspaceRepo.findById(principal.workspaceId)
        if (Option.isSome(workspace) && workspace.value.email_agent_id === id) {
          yield* workspaceRepo.setEmailAgent(principal.workspaceId, null, yield* now)
        }
        yield* repo.delete(principal.workspaceId, id)
        yield* events.record("agent.deleted", { id })
      }))
    })

    const list = Tracing.fn("Agents.list")(function*(query: ListAgents) {
      const principal = yield* canRead
      const plan = yield* planList(query)
      const { items, total } = yield* repo.list(principal.workspaceId, { is_active: query.is_active }, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    /** Provisioning: sets or clears the workspace's email agent; the agent must be of the workspace. */
    const setEmailAgent = Tracing.fn("Agents.setEmailAgent")(
      function*(workspaceId: WorkspaceId, agentId: AgentId | null) {
        if (agentId !== null) yield* find(workspaceId, agentId)
        return yield* workspaces.setEmailAgent(workspaceId, agentId)
      }
    )

    return { create, get, update, delete: remove, list, setEmailAgent } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(Events.layer, Workspaces.layer))
  )
}
