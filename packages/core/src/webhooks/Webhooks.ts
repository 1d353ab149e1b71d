/**
 * Webhook subscriptions: create, read, update, delete, rotate the secret, enable, the delivery log,
 * redeliver, ping and recover. Every operation checks the principal's ability and reads and writes only
 * its workspace. Managing subscriptions records no events (no event type covers it); a ping is delivered but not
 * recorded in the event log (as GitHub's ping is not part of a repository's events).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { Event } from "../events/Event.js"
import { BusinessStateError, NotFound, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { DeliveryId, EventId, WebhookId, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { checkWebhookUrl } from "./AddressPolicy.js"
import { HostResolver } from "./HostResolver.js"
import {
  type CreateWebhook,
  DEFAULT_GRACE_PERIOD_SECONDS,
  type ListWebhookDeliveries,
  type ListWebhooks,
  normalizeEvents,
  type RecoverWebhook,
  type RotateWebhookSecret,
  type UpdateWebhook,
  Webhook,
  WebhookRecovery,
  WebhookWithSecret
} from "./Webhook.js"
import { WebhookConfig } from "./WebhookConfig.js"
import { WebhookOps } from "./WebhookOps.js"
import { WebhookRepo } from "./WebhookRepo.js"
import { newSecret as makeSecret } from "./WebhookSecret.js"

/** Every operation here acts on webhooks: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("webhooks")

/**
 * Needs `WebhookConfig` (its `fromEnv`, which `layer` provides, reads the environment) and a `HostResolver`, which core does not implement:
 * `@support-engine/webhooks` provides the operating system's (`DnsHostResolver`).
 */
export class Webhooks extends Context.Service<Webhooks>()("@support-engine/core/Webhooks", {
  make: Effect.gen(function*() {
    const repo = yield* WebhookRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const config = yield* WebhookConfig
    const resolver = yield* HostResolver
    const ops = yield* WebhookOps
    const guard = writeGuard(yield* RowLocks, "webhooks", Webhook, "Webhook")

    const checkUrl = (url: string) =>
      checkWebhookUrl(url, config.allowPrivate).pipe(Effect.provideService(HostResolver, resolver))

    const newSecret = Effect.provideService(makeSecret, IdGenerator, ids)

    // A business-state 422: the request is valid, the workspace's state refuses it until a webhook is deleted.
    const tooMany = new BusinessStateError({
      message: `A workspace may have at most ${config.maxPerWorkspace} webhooks ` +
        `(SUPPORT_WEBHOOK_MAX_PER_WORKSPACE); delete one to create another.`
    })

    const find = (workspaceId: WorkspaceId, id: WebhookId) =>
      repo.findById(workspaceId, id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ resource: "Webhook" })),
          onSome: Effect.succeed
        }))
      )

    /**
     * Creates a subscription; the answer carries its secret, shown this once. A workspace has at most
     * `maxPerWorkspace` webhooks: the count is read in the insert's transaction, so concurrent creates cannot
     * pass it together.
     */
    const create = Tracing.fn("Webhooks.create")(function*(input: CreateWebhook) {
      const principal = yield* canWrite
      yield* checkUrl(input.url)
      const at = yield* now
      const secret = yield* newSecret
      const webhook = new Webhook({
        id: WebhookId.make(yield* ids.uuid),
        url: input.url,
        events: normalizeEvents(input.events),
        description: input.description ?? null,
        is_active: true,
        consecutive_failures: 0,
        deactivated_at: null,
        deactivation_reason: null,
        previous_secret_expires_at: null,
        created_at: at,
        updated_at: at
      })
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* repo.lockSubscriptions(principal.workspaceId)
        const count = yield* repo.countForInsert(principal.workspaceId)
        if (count >= config.maxPerWorkspace) return yield* tooMany
        yield* repo.insert(principal.workspaceId, webhook, secret)
      }))
      return new WebhookWithSecret({ ...webhook, secret })
    })

    const get = Tracing.fn("Webhooks.get")(function*(id: WebhookId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const list = Tracing.fn("Webhooks.list")(function*(query: ListWebhooks) {
      const principal = yield* canRead
      const plan = yield* planList(query)
      const { items, total } = yield* repo.list(principal.workspaceId, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    /**
     * Changes `url`, `events`, `description` when present; a new URL passes the policy first. With `If-Match`
     * the row is locked and the tag compared inside the transaction. The policy resolves the host name, so it
     * runs before the transaction, on the state read then: a row lock is never held across a DNS lookup.
     */
    const update = Tracing.fn("Webhooks.update")(
      function*(id: WebhookId, input: UpdateWebhook, options?: WriteOptions) {
        const principal = yield* canWrite
        const before = yield* find(principal.workspaceId, id)
        if (input.url !== undefined && input.url !== before.url) yield* checkUrl(input.url)
        return yield* tx.withTransaction(Effect.gen(function*() {
          // First, before the row lock of If-Match: every subscription change takes the same locks in one order.
          yield* repo.lockSubscriptions(principal.workspaceId)
          const current = yield* guard.read(options, principal.workspaceId, id, find(principal.workspaceId, id))
          const next = {
            url: input.url ?? current.url,
            events: input.events === undefined ? current.events : normalizeEvents(input.events),
            description: input.description === undefined ? current.description : input.description
          }
          const changed = next.url !== current.url || next.description !== current.description ||
            next.events.join(",") !== current.events.join(",")
          if (!changed) return current
          const updated = new Webhook({ ...current, ...next, updated_at: yield* now })
          yield* repo.update(principal.workspaceId, updated)
          return updated
        }))
      }
    )

    const remove = Tracing.fn("Webhooks.delete")(function*(id: WebhookId, options?: WriteOptions) {
      const principal = yield* canWrite
      const deleted = yield* tx.withTransaction(Effect.andThen(
        Effect.andThen(
          repo.lockSubscriptions(principal.workspaceId),
          guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id))
        ),
        repo.delete(principal.workspaceId, id)
      ))
      if (!deleted) return yield* new NotFound({ resource: "Webhook" })
    })

    /**
     * A new secret, returned once; the old one keeps signing for the grace period (default 24 hours), and
     * not at all with 0.
     */
    const rotateSecret = Tracing.fn("Webhooks.rotateSecret")(function*(id: WebhookId, input: RotateWebhookSecret) {
      const principal = yield* canWrite
      yield* find(principal.workspaceId, id)
      const at = yield* now
      const grace = input.grace_period_seconds ?? DEFAULT_GRACE_PERIOD_SECONDS
      const previousExpiresAt = grace === 0 ? null : DateTime.add(at, { seconds: grace })
      const secret = yield* newSecret
      yield* tx.withTransaction(repo.rotateSecret(principal.workspaceId, id, secret, previousExpiresAt, at))
      return new WebhookWithSecret({ ...(yield* find(principal.workspaceId, id)), secret })
    })

    /** Reactivates a deactivated webhook; its failure count starts again at 0. */
    const enable = Tracing.fn("Webhooks.enable")(function*(id: WebhookId) {
      const principal = yield* canWrite
      const current = yield* find(principal.workspaceId, id)
      if (current.is_active) return current
      const at = yield* now
      yield* tx.withTransaction(Effect.andThen(
        repo.lockSubscriptions(principal.workspaceId),
        repo.enable(principal.workspaceId, id, at)
      ))
      return yield* find(principal.workspaceId, id)
    })

    /** The delivery log, newest first. */
    const deliveries = Tracing.fn("Webhooks.deliveries")(function*(id: WebhookId, query: ListWebhookDeliveries) {
      const principal = yield* canRead
      yield* find(principal.workspaceId, id)
      const plan = yield* planList(query)
      const { items, total } = yield* repo.listDeliveries(
        principal.workspaceId,
        id,
        { status: query.status },
        plan.slice
      )
      return plan.page(items, total, timestampsKey)
    })

    /**
     * Queues a delivery again with a fresh attempt budget and the same id. For a deactivated webhook it waits
     * until `enable`.
     */
    const redeliver = Tracing.fn("Webhooks.redeliver")(function*(id: WebhookId, deliveryId: DeliveryId) {
      const principal = yield* canWrite
      yield* find(principal.workspaceId, id)
      const findDelivery = repo.findDelivery(principal.workspaceId, id, deliveryId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ resource: "Delivery" })),
          onSome: Effect.succeed
        }))
      )
      yield* findDelivery
      yield* tx.withTransaction(repo.redeliver(principal.workspaceId, id, deliveryId, yield* now))
      return yield* findDelivery
    })

    /**
     * Sends a `webhook.ping` event to this webhook alone, whatever it subscribes to, through the queue like
     * any delivery (signed, retried, in the log). A deactivated webhook gets it when enabled. Answers the delivery.
     */
    const ping = Tracing.fn("Webhooks.ping")(function*(id: WebhookId) {
      const principal = yield* canWrite
      yield* find(principal.workspaceId, id)
      const event = new Event({
        id: EventId.make(yield* ids.uuid),
        event: "webhook.ping",
        occurred_at: yield* now,
        actor: principal.actor,
        data: { webhook_id: id }
      })
      const deliveryId = DeliveryId.make(yield* ids.uuid)
      yield* tx.withTransaction(ops.ping(principal.workspaceId, id, event, deliveryId))
      return yield* repo.findDelivery(principal.workspaceId, id, deliveryId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ resource: "Webhook" })),
          onSome: Effect.succeed
        }))
      )
    })

    /**
     * Queues again the deliveries of this webhook that failed or were cancelled since `since` (like Svix's
     * recover), each with a fresh attempt budget and its own id.
     */
    const recover = Tracing.fn("Webhooks.recover")(function*(id: WebhookId, input: RecoverWebhook) {
      const principal = yield* canWrite
      const until = input.until ?? null
      if (until !== null && !DateTime.isLessThan(input.since, until)) {
        return yield* ValidationError.field("until", "The until field must be later than since.")
      }
      yield* find(principal.workspaceId, id)
      const recovered = yield* tx.withTransaction(
        ops.recover(principal.workspaceId, id, { since: input.since, until }, yield* now)
      )
      return new WebhookRecovery({ webhook_id: id, since: input.since, until, recovered })
    })

    return {
      create,
      get,
      list,
      update,
      delete: remove,
      rotateSecret,
      enable,
      deliveries,
      redeliver,
      ping,
      recover
    } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(WebhookConfig.fromEnv))
}
