/** `/webhooks`: subscriptions, secret rotation, the delivery log and redelivery (D36-D38, D46). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  CreateWebhook,
  DeliveryId,
  ListWebhookDeliveries,
  RotateWebhookSecret,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookId,
  WebhookWithSecret
} from "@support-engine/core"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(WebhookId)

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .annotate(OpenApi.Summary, "Create a webhook")
      .setPayload(payload(CreateWebhook))
      .addSuccess(WebhookWithSecret, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .annotate(OpenApi.Summary, "List webhooks")
      .setUrlParams(listQuery({}))
      .addSuccess(ListEnvelope(Webhook, "WebhookList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:id")
      .annotate(OpenApi.Summary, "Get a webhook")
      .setPath(path)
      .addSuccess(Webhook)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/webhooks/:id")
      .annotate(OpenApi.Summary, "Update a webhook")
      .setPath(path)
      .setPayload(payload(UpdateWebhook))
      .addSuccess(Webhook)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .annotate(OpenApi.Summary, "Delete a webhook")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/webhooks/:id/rotate-secret")
      .annotate(OpenApi.Summary, "Rotate a webhook's secret")
      .setPath(path)
      .setPayload(payload(RotateWebhookSecret))
      .addSuccess(WebhookWithSecret)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.post("enable", "/webhooks/:id/enable")
      .annotate(OpenApi.Summary, "Re-enable a webhook")
      .setPath(path)
      .addSuccess(Webhook)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries")
      .annotate(OpenApi.Summary, "List a webhook's deliveries")
      .setPath(path)
      .setUrlParams(listQuery({ status: ListWebhookDeliveries.fields.status }))
      .addSuccess(ListEnvelope(WebhookDelivery, "WebhookDeliveryList"))
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/webhooks/:id/deliveries/:deliveryId/redeliver")
      .annotate(OpenApi.Summary, "Redeliver a delivery")
      .setPath(parameters({ id: WebhookId, deliveryId: DeliveryId }))
      .addSuccess(WebhookDelivery)
      .addError(NotFoundResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    "Subscriptions to the events of the workspace. The secret (`whsec_…`) is shown on creation and rotation only; " +
      "URLs must be https and public unless the server allows private targets. Deliveries are retried with " +
      "backoff; a 410 or repeated failures deactivate the webhook until `enable`."
  )
{}
