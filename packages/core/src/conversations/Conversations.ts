/**
 * Conversations with the assignment rules of `AssignmentRules` applied on create and on every
 * reassignment, and one event per changed aspect.
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { AgentRepo } from "../agents/AgentRepo.js"
import { CustomerRepo } from "../customers/CustomerRepo.js"
import type { EventType } from "../events/Event.js"
import { Events } from "../events/Events.js"
import { NotFound, orNotFound, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { AgentId, ConversationId, UserId, Uuid, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { searchTerms } from "../shared/TextSearch.js"
import { formatNullableTimestamp, now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { UserRepo, WorkspaceRepo } from "../workspaces/WorkspaceRepo.js"
import { type AssigneeKind, type Assignment, decideAssignment } from "./AssignmentRules.js"
import {
  Conversation,
  type CreateConversation,
  createdData,
  eventData,
  type ListConversations,
  type UpdateConversation
} from "./Conversation.js"
import { ConversationRepo } from "./ConversationRepo.js"

/** Every operation here acts on conversations: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("conversations")

const isUuid = Schema.is(Uuid)

/** Tags are a set: duplicates collapse, first occurrence keeps its place. */
const tagSet = (tags: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(tags)]
const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((t) => b.includes(t))

export class Conversations extends Context.Service<Conversations>()("@support-engine/core/Conversations", {
  make: Effect.gen(function*() {
    const repo = yield* ConversationRepo
    const customers = yield* CustomerRepo
    const agents = yield* AgentRepo
    const users = yield* UserRepo
    const workspaces = yield* WorkspaceRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events
    const locks = yield* RowLocks
    const guard = writeGuard(locks, "conversations", Conversation, "Conversation")

    const find = (workspaceId: WorkspaceId, id: ConversationId) =>
      repo.findById(workspaceId, id).pipe(orNotFound("Conversation"))

    /** What an id names in the workspace: a user, an agent, or nothing (missing or another workspace's). */
    const names = (workspaceId: WorkspaceId, id: string) =>
      Effect.gen(function*() {
        if (!isUuid(id)) return "nothing" as const
        if (Option.isSome(yield* users.findById(workspaceId, UserId.make(id)))) return "user" as const
        const agentIds = yield* agents.findIds(workspaceId, [AgentId.make(id)])
        return agentIds.length > 0 ? "agent" as const : "nothing" as const
      })

    const emailAgent = (workspaceId: WorkspaceId) =>
      Effect.gen(function*() {
        const workspace = yield* workspaces.findById(workspaceId)
        const id = Option.match(workspace, { onNone: () => null, onSome: (w) => w.email_agent_id })
        if (id === null) return { id: null, isActive: false }
        const agent = yield* agents.findById(workspaceId, id)
        return { id, isActive: Option.match(agent, { onNone: () => false, onSome: (a) => a.is_active }) }
      })

    const assign = (
      workspaceId: WorkspaceId,
      request: {
        readonly channel: Conversation["channel"]
        readonly assigneeId: string | null
        readonly assigneeType: AssigneeKind | null | undefined
        readonly originalAgentId: string | null
        readonly creating: boolean
      }
    ) =>
      Effect.gen(function*() {
        const decided = decideAssignment({
          ...request,
          names: request.assigneeId === null ? "nothing" : yield* names(workspaceId, request.assigneeId),
          emailAgent: request.channel === "email" && request.assigneeId !== null
            ? yield* emailAgent(workspaceId)
            : { id: null, isActive: false }
        })
        return yield* Result.match(decided, { onFailure: Effect.fail, onSuccess: (a: Assignment) => Effect.succeed(a) })
      })

    const create = Tracing.fn("Conversations.create")(function*(input: CreateConversation) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      const channel = input.channel ?? "chat"
      return yield* tx.withTransaction(Effect.gen(function*() {
        // The customer is held until the conversation is in: an erasure of them either sees it or comes first.
        yield* locks.lock("customers", workspaceId, input.customer_id)
        if (Option.isNone(yield* customers.findById(workspaceId, input.customer_id))) {
          return yield* ValidationError.field("customer_id", "must be a customer of the workspace")
        }
        const agentId = input.agent_id ?? null
        if (agentId !== null) {
          if (channel !== "chat") {
            return yield* ValidationError.field("agent_id", "is only accepted for chat conversations")
          }
          if ((yield* agents.findIds(workspaceId, [agentId])).length === 0) {
            return yield* ValidationError.field("agent_id", "must be an agent of the workspace")
          }
        }
        const assignment = yield* assign(workspaceId, {
          channel,
          assigneeId: input.assignee_id ?? null,
          assigneeType: input.assignee_type,
          originalAgentId: agentId,
          creating: true
        })
        const at = yield* now
        const conversation = new Conversation({
          id: ConversationId.make(yield* ids.uuid),
          channel,
          customer_id: input.customer_id,
          agent_id: assignment.agent_id === null ? null : AgentId.make(assignment.agent_id),
          subject: input.subject ?? null,
          status: "open",
          priority: input.priority ?? "normal",
          assignee_id: assignment.assignee_id,
          assignee_type: assignment.assignee_type,
          tags: tagSet(input.tags ?? []),
          closed_at: null,
          first_response_at: null,
          last_message_at: null,
          is_spam: false,
          spam_score: 0,
          created_at: at,
          updated_at: at
          // Every field is a decoded input, the assignment's outcome or a constant: nothing left to check.
        }, { disableChecks: true })
        yield* repo.insert(workspaceId, conversation)
        yield* events.record("conversation.created", createdData(conversation))
        return conversation
      }))
    })

    const get = Tracing.fn("Conversations.get")(function*(id: ConversationId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const update = Tracing.fn("Conversations.update")(
      function*(id: ConversationId, input: UpdateConversation, options?: WriteOptions) {
        const principal = yield* canWrite
        const workspaceId = principal.workspaceId
        return yield* tx.withTransaction(Effect.gen(function*() {
          // Held first, so an erasure committed meanwhile leaves a 404 rather than an event with their data.
          yield* locks.lock("conversations", workspaceId, id)
          const current = yield* guard.read(options, workspaceId, id, find(workspaceId, id))
          const at = yield* now

          const reassigning = input.assignee_id !== undefined || input.assignee_type !== undefined
          const assignment = reassigning
            ? yield* assign(workspaceId, {
              channel: current.channel,
              assigneeId: input.assignee_id === undefined ? current.assignee_id : input.assignee_id,
              assigneeType: input.assignee_type,
              originalAgentId: current.agent_id,
              creating: false
            })
            : current
          const status = input.status ?? current.status
          const tags = input.tags === undefined ? current.tags : tagSet(input.tags)
          const next = new Conversation({
            ...current,
            subject: input.subject === undefined ? current.subject : input.subject,
            status,
            closed_at: status === current.status ? current.closed_at : status === "closed" ? at : null,
            priority: input.priority ?? current.priority,
            assignee_id: assignment.assignee_id,
            assignee_type: assignment.assignee_type,
            is_spam: input.is_spam ?? current.is_spam,
            tags
          })

          const aspects: Array<[EventType, Record<string, unknown>]> = []
          if (next.assignee_id !== current.assignee_id || next.assignee_type !== current.assignee_type) {
            aspects.push(["conversation.assigned.updated", {
              assignee_id: current.assignee_id,
              assignee_type: current.assignee_type
            }])
          }
          if (next.status !== current.status) {
            aspects.push(["conversation.status.updated", {
              status: current.status,
              closed_at: formatNullableTimestamp(current.closed_at)
            }])
          }
          if (next.priority !== current.priority) {
            aspects.push(["conversation.priority.updated", { priority: current.priority }])
          }
          if (!sameSet(next.tags, current.tags)) {
            aspects.push(["conversation.tags.updated", { tags: [...current.tags] }])
          }
          const quietChange = next.subject !== current.subject || next.is_spam !== current.is_spam
          if (aspects.length === 0 && !quietChange) return current

          const updated = new Conversation({ ...next, updated_at: at })
          yield* repo.update(workspaceId, updated)
          for (const [type, previous] of aspects) yield* events.record(type, { ...eventData(updated), previous })
          return updated
        }))
      }
    )

    const remove = Tracing.fn("Conversations.delete")(function*(id: ConversationId, options?: WriteOptions) {
      const principal = yield* canWrite
      yield* tx.withTransaction(Effect.gen(function*() {
        // Held before its messages and their reply jobs are deleted: the lock order of `RowLocks`.
        yield* locks.lock("conversations", principal.workspaceId, id)
        yield* guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id))
        if (!(yield* repo.delete(principal.workspaceId, id))) return yield* new NotFound({ resource: "Conversation" })
        yield* events.record("conversation.deleted", { id })
      }))
    })

    const list = Tracing.fn("Conversations.list")(function*(query: ListConversations) {
      const principal = yield* canRead
      const plan = yield* planList(query, { ranked: query.q !== undefined })
      const { items, total } = yield* repo.list(principal.workspaceId, {
        status: query.status,
        priority: query.priority,
        channel: query.channel,
        customer_id: query.customer_id,
        assignee_id: query.assignee_id,
        terms: query.q === undefined ? undefined : yield* searchTerms(query.q)
      }, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    return { create, get, update, delete: remove, list } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(Events.layer))
}
