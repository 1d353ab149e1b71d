/** Handlers of `/webhooks` (D36, D46, D52): translate and call `Webhooks`; single webhooks carry an `ETag`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { ListWebhookDeliveries, ListWebhooks, Webhook, Webhooks, type WebhookWithSecret } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, withETagOf, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

/** The `ETag` of the webhook an answer with its secret describes: the tag `GET /webhooks/{id}` gives it. */
const withWebhookETag = withETagOf(
  Webhook,
  ({ secret: _, ...fields }: WebhookWithSecret) => new Webhook(fields, true)
)

export const WebhooksHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "webhooks">,
  never,
  Webhooks | Authentication
> = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("create", ({ payload }) => webhooks.create(payload).pipe(withWebhookETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(webhooks.list(new ListWebhooks(urlParams)), toList))
      .handle("get", ({ path }) => webhooks.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          webhooks.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => webhooks.delete(path.id, options)))
      .handle("rotateSecret", ({ path, payload }) => webhooks.rotateSecret(path.id, payload).pipe(withWebhookETag))
      .handle("enable", ({ path }) => webhooks.enable(path.id).pipe(withETag))
      .handle(
        "deliveries",
        ({ path, urlParams }) =>
          Effect.flatMap(webhooks.deliveries(path.id, new ListWebhookDeliveries(urlParams)), toList)
      )
      .handle("redeliver", ({ path }) => webhooks.redeliver(path.id, path.deliveryId))
      .handle("ping", ({ path }) => webhooks.ping(path.id))
      .handle("recover", ({ path, payload }) => webhooks.recover(path.id, payload))
  }))
