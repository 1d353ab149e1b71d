/**
 * A customer's personal data in one answer: the customer, each of their conversations, and each
 * conversation's messages oldest first. It reads in one transaction, so the parts agree with each other even while
 * messages are being posted. It needs only the customers read ability: what it returns is the customer's own.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { Conversation } from "../conversations/Conversation.js"
import { ConversationRepo, MessageRepo } from "../conversations/ConversationRepo.js"
import { Message } from "../conversations/Message.js"
import { orNotFound } from "../shared/Errors.js"
import type { ConversationId, CustomerId, WorkspaceId } from "../shared/Ids.js"
import { accessTo } from "../shared/Principal.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { Customer } from "./Customer.js"
import { CustomerRepo } from "./CustomerRepo.js"

const { canRead } = accessTo("customers")

/** A conversation of the export: the conversation as the API shows it, with its messages oldest first. */
export const ExportedConversation = Schema.Struct({ ...Conversation.fields, messages: Schema.Array(Message) })
  .annotate({ identifier: "ExportedConversation" })
export type ExportedConversation = typeof ExportedConversation.Type

export const CustomerExport = Schema.Struct({
  customer: Customer,
  conversations: Schema.Array(ExportedConversation)
}).annotate({ identifier: "CustomerExport" })
export type CustomerExport = typeof CustomerExport.Type

/** Rows read per statement while walking a list: every row is wanted, a page only bounds one statement. */
const BATCH = 100

/** Every row of a list, in its order, read `BATCH` at a time. */
const everyRow = <A, E>(
  page: (slice: SliceRequest) => Effect.Effect<Slice<A>, E>
): Effect.Effect<ReadonlyArray<A>, E> =>
  Effect.gen(function*() {
    const rows: Array<A> = []
    for (let offset = 0;; offset += BATCH) {
      const slice = yield* page({ limit: BATCH, offset, count: false })
      rows.push(...slice.items)
      if (slice.items.length < BATCH) return rows
    }
  })

export class CustomerExports extends Context.Service<CustomerExports>()("@support-engine/core/CustomerExports", {
  make: Effect.gen(function*() {
    const customers = yield* CustomerRepo
    const conversations = yield* ConversationRepo
    const messages = yield* MessageRepo
    const tx = yield* Transactor

    const messagesOf = (workspaceId: WorkspaceId, id: ConversationId) =>
      // The list is newest first; the export reads as the conversation happened.
      Effect.map(
        everyRow((slice) => messages.list(workspaceId, { conversation_id: id }, slice)),
        (rows) => [...rows].reverse()
      )

    const exportOf = Tracing.fn("CustomerExports.export")(function*(id: CustomerId) {
      const principal = yield* canRead
      const workspaceId = principal.workspaceId
      return yield* tx.withTransaction(Effect.gen(function*() {
        const customer = yield* customers.findById(workspaceId, id).pipe(orNotFound("Customer"))
        const owned = yield* everyRow((slice) => conversations.list(workspaceId, { customer_id: id }, slice))
        const exported = yield* Effect.forEach(
          owned,
          (conversation) =>
            Effect.map(messagesOf(workspaceId, conversation.id), (rows) => ({ ...conversation, messages: rows }))
        )
        return { customer, conversations: exported } satisfies CustomerExport
      }))
    })

    return { export: exportOf } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
