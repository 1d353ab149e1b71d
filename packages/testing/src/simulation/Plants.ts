/**
 * The bugs the simulator plants (Options.ts, `--plant-bug`), as decorations of the engine's own ports or of the
 * receiver: the engine runs with the bug inside it, and the checks, which know nothing of it, must catch it. The
 * signature bug is planted on the checker's side instead (Signatures.ts), as it was first.
 */
import {
  AgentId,
  AgentRepo,
  type Customer,
  type CustomerId,
  CustomerRepo,
  DeliveryQueue,
  Message,
  MessageRepo,
  type WorkspaceId
} from "@support-engine/core"
import type { StoragePorts } from "@support-engine/storage"
import { Effect, Layer, Option } from "effect"
import type { RecordingReceiver } from "../RecordingReceiver.js"
import type { PlantedBug } from "./Options.js"
import { PHRASES } from "./Questions.js"

/** Every seventh fan-out does nothing: the event is committed, its deliveries are not queued. */
const skipDelivery = Layer.effect(
  DeliveryQueue,
  Effect.map(DeliveryQueue, (queue) => {
    let calls = 0
    return {
      ...queue,
      enqueue: (workspaceId, event) => ++calls % 7 === 0 ? Effect.void : queue.enqueue(workspaceId, event)
    }
  })
)

/** The customers list counts one more than there is once there are three. */
const wrongTotal = Layer.effect(
  CustomerRepo,
  Effect.map(CustomerRepo, (repo) => ({
    ...repo,
    list: (workspaceId, filter, slice) =>
      Effect.map(
        repo.list(workspaceId, filter, slice),
        (page) => page.total >= 3 ? { ...page, total: page.total + 1 } : page
      )
  }))
)

/** A customer is found by id in whichever workspace it was made in. */
const isolationLeak = Layer.effect(
  CustomerRepo,
  Effect.map(CustomerRepo, (repo) => {
    const owners = new Map<CustomerId, WorkspaceId>()
    return {
      ...repo,
      insert: (workspaceId, customer) =>
        Effect.tap(repo.insert(workspaceId, customer), () => Effect.sync(() => owners.set(customer.id, workspaceId))),
      findById: (workspaceId, id) => repo.findById(owners.get(id) ?? workspaceId, id)
    }
  })
)

/** An erased customer is still found by id: a copy read before the erasure answers for them afterwards. */
const staleAfterErase = Layer.effect(
  CustomerRepo,
  Effect.map(CustomerRepo, (repo) => {
    const erased = new Map<CustomerId, Customer>()
    return {
      ...repo,
      erase: (workspaceId, id, at) =>
        Effect.gen(function*() {
          const copy = yield* repo.findById(workspaceId, id)
          const counts = yield* repo.erase(workspaceId, id, at)
          if (Option.isSome(copy) && Option.isSome(counts)) erased.set(id, copy.value)
          return counts
        }),
      findById: (workspaceId, id) =>
        Effect.map(
          repo.findById(workspaceId, id),
          (found) => Option.orElse(found, () => Option.fromNullishOr(erased.get(id)))
        )
    }
  })
)

/** An agent's message is stored with the agent's first prohibited phrase appended (or one agents are often given). */
const prohibitedReply = Layer.effect(
  MessageRepo,
  Effect.gen(function*() {
    const repo = yield* MessageRepo
    const agents = yield* AgentRepo
    return {
      ...repo,
      insert: (workspaceId, message) =>
        Effect.gen(function*() {
          if (message.sender_type !== "agent" || message.sender_id === null) {
            return yield* repo.insert(workspaceId, message)
          }
          const agent = yield* agents.findById(workspaceId, AgentId.make(message.sender_id))
          const phrase = Option.match(agent, {
            onNone: () => PHRASES[0]!,
            onSome: (a) => a.prohibited_phrases[0]?.phrase ?? PHRASES[0]!
          })
          return yield* repo.insert(workspaceId, new Message({ ...message, content: `${message.content} ${phrase}` }))
        })
    }
  })
)

/** The engine-side plant of `bug`, if it has one. */
export const plantedPorts = (bug: PlantedBug | undefined): Layer.Layer<never, never, StoragePorts> | undefined => {
  switch (bug) {
    case "skip-delivery":
      return skipDelivery
    case "wrong-total":
      return wrongTotal
    case "isolation-leak":
      return isolationLeak
    case "prohibited-reply":
      return prohibitedReply
    case "stale-after-erase":
      return staleAfterErase
    default:
      return undefined
  }
}

/** The receiver, or for "duplicate-delivery" one whose transport sends every fifth request twice. */
export const plantedReceiver = (
  bug: PlantedBug | undefined,
  receiver: RecordingReceiver["Service"]
): RecordingReceiver["Service"] => {
  if (bug !== "duplicate-delivery") return receiver
  let sent = 0
  return {
    ...receiver,
    send: (request) =>
      ++sent % 5 === 0
        ? Effect.andThen(Effect.result(receiver.send(request)), receiver.send(request))
        : receiver.send(request)
  }
}
