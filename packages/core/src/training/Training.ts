/**
 * Training data: items of five types, URL discovery, agents, folders and resync. Every change
 * records its `training.*` event in the same transaction; `TrainingWorker.ts` processes what is queued.
 */
import { Context, Effect, Layer, Option } from "effect"
import { slugify } from "../agents/Agent.js"
import { AgentRepo } from "../agents/AgentRepo.js"
import { encodeData, Events } from "../events/Events.js"
import {
  BusinessStateError,
  InvalidAgent,
  InvalidType,
  NotFound,
  NoUrlsProvided,
  orNotFound,
  UrlDiscoveryRequired,
  ValidationError
} from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { type AgentId, TrainingDataId, TrainingFolderId, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { afterCommit, Transactor } from "../shared/Transactor.js"
import { normalizeUrl } from "../shared/UrlNormalization.js"
import {
  type CreateTrainingData,
  type CreateTrainingFolder,
  type ListTrainingData,
  type ProcessUrls,
  ResyncStarted,
  TrainingDataItem,
  TrainingFolder,
  type UpdateTrainingData,
  type UrlExistsQuery
} from "./TrainingData.js"
import { TrainingRepo } from "./TrainingRepo.js"
import { TrainingSignal } from "./TrainingSignal.js"

/** Every operation here acts on training: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("training")

const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((id) => b.includes(id))

export class Training extends Context.Service<Training>()("@support-engine/core/Training", {
  make: Effect.gen(function*() {
    const repo = yield* TrainingRepo
    const agents = yield* AgentRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events
    const signal = yield* TrainingSignal
    const guard = writeGuard(yield* RowLocks, "training_data", TrainingDataItem, "Training data")

    const find = (workspaceId: WorkspaceId, id: TrainingDataId) =>
      repo.findById(workspaceId, id).pipe(orNotFound("Training data"))

    /** Every agent must be an agent of the workspace: 400 INVALID_AGENT otherwise. */
    const checkAgents = (workspaceId: WorkspaceId, agentIds: ReadonlyArray<AgentId>) =>
      Effect.gen(function*() {
        const unique = [...new Set(agentIds)]
        const found = yield* agents.findIds(workspaceId, unique)
        const missing = unique.filter((id) => !found.includes(id))
        if (missing.length > 0) {
          return yield* new InvalidAgent({ message: `Agent ${missing[0]} is not an agent of this workspace.` })
        }
        return unique
      })

    const checkFolder = (workspaceId: WorkspaceId, folderId: TrainingFolderId | null | undefined) =>
      folderId === null || folderId === undefined
        ? Effect.succeed(null)
        : Effect.flatMap(repo.findFolder(workspaceId, folderId), (found) =>
          Option.isNone(found)
            ? Effect.fail(ValidationError.field("training_folder_id", "must be a training folder of the workspace"))
            : Effect.succeed(folderId))

    const newItem = (
      fields: Pick<
        TrainingDataItem,
        | "type"
        | "source"
        | "title"
        | "description"
        | "content"
        | "question"
        | "answer"
        | "agent_ids"
        | "training_folder_id"
      >
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        const id = TrainingDataId.make(yield* ids.uuid)
        // The id's tail keeps slugs unique without a read-then-write race.
        const slug = `${slugify(fields.title ?? fields.source ?? fields.type)}-${id.slice(-8)}`
        return new TrainingDataItem({
          ...fields,
          id,
          slug,
          is_processed: false,
          status: "queued",
          created_at: at,
          updated_at: at
        })
      })

    const insert = (workspaceId: WorkspaceId, item: TrainingDataItem) =>
      Effect.gen(function*() {
        yield* repo.insert(
          workspaceId,
          item,
          item.type === "url" && item.source !== null ? normalizeUrl(item.source) : null
        )
        yield* events.record("training.created", encodeData(TrainingDataItem, item))
        if (item.agent_ids.length > 0) {
          yield* events.record("training.agent.assigned", { training_data_id: item.id, agent_ids: [...item.agent_ids] })
        }
      })

    const create = Tracing.fn("Training.create")(function*(input: CreateTrainingData) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      if (input.type === "url") return yield* new UrlDiscoveryRequired()
      if (input.type !== "text" && input.type !== "qa" && input.type !== "file" && input.type !== "video") {
        return yield* new InvalidType({ message: `Unsupported training data type "${input.type}".` })
      }
      const type = input.type
      const required: Array<"content" | "question" | "answer" | "source"> = type === "text"
        ? ["content"]
        : type === "qa"
        ? ["question", "answer"]
        : ["source"]
      const missing = required.filter((field) => input[field] === undefined)
      if (missing.length > 0) {
        return yield* new ValidationError({
          errors: Object.fromEntries(missing.map((f) => [f, [`The ${f} field is required for ${type} training data.`]]))
        })
      }
      const item = yield* tx.withTransaction(Effect.gen(function*() {
        const item = yield* newItem({
          type,
          source: type === "file" || type === "video" ? input.source ?? null : null,
          title: input.title ?? null,
          description: input.description ?? null,
          content: type === "text" ? input.content ?? null : null,
          question: type === "qa" ? input.question ?? null : null,
          answer: type === "qa" ? input.answer ?? null : null,
          agent_ids: yield* checkAgents(workspaceId, input.agent_ids ?? []),
          training_folder_id: yield* checkFolder(workspaceId, input.training_folder_id)
        })
        yield* insert(workspaceId, item)
        // After the outermost commit, which an idempotency key's transaction may enclose.
        yield* afterCommit(signal.notify)
        return item
      }))
      return item
    })

    const processUrls = Tracing.fn("Training.processUrls")(function*(input: ProcessUrls) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      const byNormalized = new Map<string, string>()
      for (const raw of input.urls) {
        const normalized = normalizeUrl(raw)
        if (normalized !== null && !byNormalized.has(normalized)) byNormalized.set(normalized, raw.trim())
      }
      if (byNormalized.size === 0) return yield* new NoUrlsProvided()
      const items = yield* tx.withTransaction(Effect.gen(function*() {
        const agentIds = yield* checkAgents(workspaceId, input.agent_ids ?? [])
        const folderId = yield* checkFolder(workspaceId, input.training_folder_id)
        const items = yield* Effect.forEach([...byNormalized.values()], (source) =>
          Effect.gen(function*() {
            const item = yield* newItem({
              type: "url",
              source,
              title: null,
              description: null,
              content: null,
              question: null,
              answer: null,
              agent_ids: agentIds,
              training_folder_id: folderId
            })
            yield* insert(workspaceId, item)
            return item
          }))
        yield* afterCommit(signal.notify)
        return items
      }))
      return items
    })

    const get = Tracing.fn("Training.get")(function*(id: TrainingDataId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const update = Tracing.fn("Training.update")(
      function*(id: TrainingDataId, input: UpdateTrainingData, options?: WriteOptions) {
        const principal = yield* canWrite
        const workspaceId = principal.workspaceId
        return yield* tx.withTransaction(Effect.gen(function*() {
          const current = yield* guard.read(options, workspaceId, id, find(workspaceId, id))
          const agentIds = input.agent_ids === undefined
            ? current.agent_ids
            : yield* checkAgents(workspaceId, input.agent_ids)
          const next = {
            title: input.title === undefined ? current.title : input.title,
            description: input.description === undefined ? current.description : input.description
          }
          const fieldsChanged = next.title !== current.title || next.description !== current.description
          const agentsChanged = !sameIds(agentIds, current.agent_ids)
          if (!fieldsChanged && !agentsChanged) return current
          const updated = new TrainingDataItem({ ...current, ...next, agent_ids: agentIds, updated_at: yield* now })
          yield* repo.update(workspaceId, updated)
          if (fieldsChanged) yield* events.record("training.updated", encodeData(TrainingDataItem, updated))
          if (agentsChanged) {
            yield* events.record("training.agent.assigned", { training_data_id: updated.id, agent_ids: [...agentIds] })
          }
          return updated
        }))
      }
    )

    const remove = Tracing.fn("Training.delete")(function*(id: TrainingDataId, options?: WriteOptions) {
      const principal = yield* canWrite
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id))
        if (!(yield* repo.delete(principal.workspaceId, id))) return yield* new NotFound({ resource: "Training data" })
        yield* events.record("training.deleted", { id })
      }))
    })

    const list = Tracing.fn("Training.list")(function*(query: ListTrainingData) {
      const principal = yield* canRead
      const plan = yield* planList(query)
      const { items, total } = yield* repo.list(
        principal.workspaceId,
        { type: query.type, status: query.status },
        plan.slice
      )
      return plan.page(items, total, timestampsKey)
    })

    /** A url item with completed pages goes back to the queue; otherwise a business-state 422. */
    const resync = Tracing.fn("Training.resync")(function*(id: TrainingDataId) {
      const principal = yield* canWrite
      const workspaceId = principal.workspaceId
      const started = yield* tx.withTransaction(Effect.gen(function*() {
        const current = yield* find(workspaceId, id)
        const completed = current.type === "url"
          ? (yield* repo.pages(workspaceId, id)).filter((p) => p.status === "completed").length
          : 0
        if (completed === 0) {
          return yield* new BusinessStateError({ message: "This training data has no completed URLs to resync." })
        }
        if (current.status !== "queued") {
          const queued = new TrainingDataItem({
            ...current,
            status: "queued",
            is_processed: false,
            updated_at: yield* now
          })
          yield* repo.update(workspaceId, queued)
          yield* events.record("training.updated", encodeData(TrainingDataItem, queued))
        }
        yield* afterCommit(signal.notify)
        return new ResyncStarted({
          success: true,
          message: "Resync started.",
          data: { training_data_id: id, urls_count: completed }
        })
      }))
      return started
    })

    /** Whether a url item's source or a page discovered under one has this URL, after normalisation. */
    const urlExists = Tracing.fn("Training.urlExists")(function*(query: UrlExistsQuery) {
      const principal = yield* canRead
      const normalized = normalizeUrl(query.url)
      if (normalized === null) return yield* ValidationError.field("url", "must be an absolute http(s) URL")
      return { exists: yield* repo.urlExists(principal.workspaceId, normalized) }
    })

    const createFolder = Tracing.fn("Training.createFolder")(function*(input: CreateTrainingFolder) {
      const principal = yield* canWrite
      const at = yield* now
      const folder = new TrainingFolder({
        id: TrainingFolderId.make(yield* ids.uuid),
        name: input.name,
        created_at: at,
        updated_at: at
      })
      yield* tx.withTransaction(repo.insertFolder(principal.workspaceId, folder))
      return folder
    })

    const listFolders = Tracing.fn("Training.listFolders")(function*() {
      const principal = yield* canRead
      return yield* repo.listFolders(principal.workspaceId)
    })

    const pages = Tracing.fn("Training.pages")(function*(id: TrainingDataId) {
      const principal = yield* canRead
      yield* find(principal.workspaceId, id)
      return yield* repo.pages(principal.workspaceId, id)
    })

    return {
      create,
      processUrls,
      get,
      update,
      delete: remove,
      list,
      resync,
      urlExists,
      createFolder,
      listFolders,
      pages
    } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(Events.layer, TrainingSignal.layer))
  )
}
