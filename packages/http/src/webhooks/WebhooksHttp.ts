/** Handlers of `/webhooks` (D36, D46): translate and call `Webhooks`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { ListWebhookDeliveries, ListWebhooks, Webhooks } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const WebhooksHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "webhooks">,
  never,
  Webhooks | Authentication
> = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("create", ({ payload }) => webhooks.create(payload))
      .handle("list", ({ urlParams }) => Effect.flatMap(webhooks.list(new ListWebhooks(urlParams)), toList))
      .handle("get", ({ path }) => webhooks.get(path.id))
      .handle("update", ({ path, payload }) => webhooks.update(path.id, payload))
      .handle("delete", ({ path }) => webhooks.delete(path.id))
      .handle("rotateSecret", ({ path, payload }) => webhooks.rotateSecret(path.id, payload))
      .handle("enable", ({ path }) => webhooks.enable(path.id))
      .handle(
        "deliveries",
        ({ path, urlParams }) =>
          Effect.flatMap(webhooks.deliveries(path.id, new ListWebhookDeliveries(urlParams)), toList)
      )
      .handle("redeliver", ({ path }) => webhooks.redeliver(path.id, path.deliveryId))
  }))
