/** `/webhooks`: subscriptions, secret rotation, the delivery log, redelivery, ping and recover (D36-D38, D46, D52). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  CreateWebhook,
  DeliveryId,
  ListWebhookDeliveries,
  RecoverWebhook,
  RotateWebhookSecret,
  UpdateWebhook,
  Webhook,
  WebhookDelivery,
  WebhookId,
  WebhookRecovery,
  WebhookWithSecret
} from "@support-engine/core"
import { Authentication } from "../shared/Authentication.js"
import { BusinessStateErrorResponse, NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(WebhookId)

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .annotate(OpenApi.Summary, "Create a webhook")
      .setPayload(payload(CreateWebhook))
      .addSuccess(WebhookWithSecret, { status: 201 })
      .addError(BusinessStateErrorResponse)
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
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/webhooks/:id")
      .annotate(OpenApi.Summary, "Delete a webhook")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
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
  .add(
    HttpApiEndpoint.post("ping", "/webhooks/:id/ping")
      .annotate(OpenApi.Summary, "Send a webhook.ping event to this webhook alone")
      .annotate(
        OpenApi.Description,
        "Queues one `webhook.ping` delivery to this webhook, whatever it subscribes to, and answers it (202). " +
          "The ping is signed and retried like any delivery and appears in the delivery log, but not in " +
          "`/events`. A deactivated webhook receives it once enabled."
      )
      .setPath(path)
      .addSuccess(WebhookDelivery, { status: 202 })
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.post("recover", "/webhooks/:id/recover")
      .annotate(OpenApi.Summary, "Queue again the deliveries that failed since a time")
      .annotate(
        OpenApi.Description,
        "Every delivery of this webhook created at or after `since` (and before `until`, if given) that failed " +
          "or was cancelled is queued again with a fresh attempt budget and the same delivery id; answers how " +
          "many (202). A deactivated webhook receives them once enabled."
      )
      .setPath(path)
      .setPayload(payload(RecoverWebhook))
      .addSuccess(WebhookRecovery, { status: 202 })
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
