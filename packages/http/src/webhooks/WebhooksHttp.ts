/** Handlers of `/webhooks`: translate and call `Webhooks`; single webhooks carry an `ETag`. */
import { ListWebhookDeliveries, ListWebhooks, Webhook, Webhooks, type WebhookWithSecret } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, withETagOf, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

/** The `ETag` of the webhook an answer with its secret describes: the tag `GET /webhooks/{id}` gives it. */
const withWebhookETag = withETagOf(
  Webhook,
  ({ secret: _, ...fields }: WebhookWithSecret) => new Webhook(fields, { disableChecks: true })
)

export const WebhooksHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "webhooks">,
  never,
  Webhooks | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("create", ({ payload }) => webhooks.create(payload).pipe(withWebhookETag))
      .handle("list", ({ query }) => Effect.flatMap(webhooks.list(new ListWebhooks(query)), toList))
      .handle("get", ({ params }) => webhooks.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          webhooks.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) => webhooks.delete(params.id, options)))
      .handle("rotateSecret", ({ params, payload }) => webhooks.rotateSecret(params.id, payload).pipe(withWebhookETag))
      .handle("enable", ({ params }) => webhooks.enable(params.id).pipe(withETag))
      .handle(
        "deliveries",
        ({ params, query }) => Effect.flatMap(webhooks.deliveries(params.id, new ListWebhookDeliveries(query)), toList)
      )
      .handle("redeliver", ({ params }) => webhooks.redeliver(params.id, params.deliveryId))
      .handle("ping", ({ params }) => webhooks.ping(params.id))
      .handle("recover", ({ params, payload }) => webhooks.recover(params.id, payload))
  }))
