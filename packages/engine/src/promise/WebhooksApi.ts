/**
 * Webhook subscriptions and their deliveries in the Promise API: the operations of the
 * HTTP webhooks group, through core's `Webhooks` service. `create` and `rotateSecret` answer the secret, this once;
 * `update` and `delete` take `{ ifMatch }` as the other resources do.
 */
import {
  CreateWebhook,
  decodeRequest,
  DeliveryId,
  ListWebhookDeliveries,
  ListWebhooks,
  RecoverWebhook,
  RotateWebhookSecret,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookId,
  WebhookRecovery,
  Webhooks,
  WebhookWithSecret
} from "@support-engine/core"
import { Effect } from "effect"
import { crud, decodeId, encode, keyed, type KeyOptions, page } from "./Runner.js"

export const webhooksApi = () => {
  const webhookId = decodeId(WebhookId)
  const deliveryId = decodeId(DeliveryId)
  const withSecret = encode(WebhookWithSecret)
  const base = crud(Webhooks, {
    id: WebhookId,
    model: Webhook,
    create: CreateWebhook,
    update: UpdateWebhook,
    list: ListWebhooks,
    path: "/v1/webhooks"
  })
  return {
    ...base,
    /** Subscribes; the answer carries the signing secret, shown this once. */
    create: (input: typeof CreateWebhook.Encoded, options?: KeyOptions) =>
      keyed(
        options,
        "POST",
        "/v1/webhooks",
        input,
        201,
        Effect.flatMap(Webhooks, (s) => Effect.flatMap(decodeRequest(CreateWebhook)(input), s.create)).pipe(
          Effect.flatMap(withSecret)
        )
      ),
    /** A new secret, returned once; the old one keeps signing for the grace period. */
    rotateSecret: (key: string, input: typeof RotateWebhookSecret.Encoded = {}) =>
      Effect.flatMap(Webhooks, (s) =>
        Effect.flatMap(
          Effect.all([webhookId(key), decodeRequest(RotateWebhookSecret)(input)]),
          ([id, body]) => s.rotateSecret(id, body)
        )).pipe(Effect.flatMap(withSecret)),
    /** Reactivates a deactivated webhook. */
    enable: (key: string) =>
      Effect.flatMap(Webhooks, (s) => Effect.flatMap(webhookId(key), s.enable)).pipe(Effect.flatMap(encode(Webhook))),
    /** The delivery log, newest first. */
    deliveries: (key: string, query: typeof ListWebhookDeliveries.Encoded = {}) =>
      Effect.flatMap(Webhooks, (s) =>
        Effect.flatMap(
          Effect.all([webhookId(key), decodeRequest(ListWebhookDeliveries)(query)]),
          ([id, q]) => s.deliveries(id, q)
        )).pipe(Effect.flatMap(encode(page(WebhookDelivery)))),
    /** Queues a delivery again with a fresh attempt budget and the same id. */
    redeliver: (key: string, delivery: string) =>
      Effect.flatMap(Webhooks, (s) =>
        Effect.flatMap(
          Effect.all([webhookId(key), deliveryId(delivery)]),
          ([id, d]) => s.redeliver(id, d)
        )).pipe(Effect.flatMap(encode(WebhookDelivery))),
    /** Queues a `webhook.ping` delivery to this webhook alone and answers it; not recorded in `events`. */
    ping: (key: string) =>
      Effect.flatMap(Webhooks, (s) => Effect.flatMap(webhookId(key), s.ping)).pipe(
        Effect.flatMap(encode(WebhookDelivery))
      ),
    /** Queues again the deliveries that failed or were cancelled since `since`; answers how many. */
    recover: (key: string, input: typeof RecoverWebhook.Encoded) =>
      Effect.flatMap(Webhooks, (s) =>
        Effect.flatMap(
          Effect.all([webhookId(key), decodeRequest(RecoverWebhook)(input)]),
          ([id, body]) => s.recover(id, body)
        )).pipe(Effect.flatMap(encode(WebhookRecovery)))
  }
}
