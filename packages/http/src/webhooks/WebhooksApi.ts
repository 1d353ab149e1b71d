/** `/webhooks`: subscriptions, secret rotation, the delivery log, redelivery, ping and recover. */
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
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { BusinessStateErrorResponse, NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(WebhookId)

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks", {
      payload: payload(CreateWebhook),
      success: WebhookWithSecret.pipe(HttpApiSchema.status(201)),
      error: BusinessStateErrorResponse
    }).annotate(OpenApi.Summary, "Create a webhook")
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks", { query: listQuery({}), success: ListEnvelope(Webhook, "WebhookList") })
      .annotate(OpenApi.Summary, "List webhooks")
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:id", { params: path, success: Webhook, error: NotFoundResponse }).annotate(
      OpenApi.Summary,
      "Get a webhook"
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/webhooks/:id", {
      params: path,
      payload: payload(UpdateWebhook),
      success: Webhook,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update a webhook")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/webhooks/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete a webhook")
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/webhooks/:id/rotate-secret", {
      params: path,
      payload: payload(RotateWebhookSecret),
      success: WebhookWithSecret,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Rotate a webhook's secret")
  )
  .add(
    HttpApiEndpoint.post("enable", "/webhooks/:id/enable", { params: path, success: Webhook, error: NotFoundResponse })
      .annotate(OpenApi.Summary, "Re-enable a webhook")
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries", {
      params: path,
      query: listQuery({ status: ListWebhookDeliveries.fields.status }),
      success: ListEnvelope(WebhookDelivery, "WebhookDeliveryList"),
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "List a webhook's deliveries")
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/webhooks/:id/deliveries/:deliveryId/redeliver", {
      params: parameters({ id: WebhookId, deliveryId: DeliveryId }),
      success: WebhookDelivery,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Redeliver a delivery")
  )
  .add(
    HttpApiEndpoint.post("ping", "/webhooks/:id/ping", {
      params: path,
      success: WebhookDelivery.pipe(HttpApiSchema.status(202)),
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Send a webhook.ping event to this webhook alone").annotate(
      OpenApi.Description,
      "Queues one `webhook.ping` delivery to this webhook, whatever it subscribes to, and answers it (202). " +
        "The ping is signed and retried like any delivery and appears in the delivery log, but not in " +
        "`/events`. A deactivated webhook receives it once enabled."
    )
  )
  .add(
    HttpApiEndpoint.post("recover", "/webhooks/:id/recover", {
      params: path,
      payload: payload(RecoverWebhook),
      success: WebhookRecovery.pipe(HttpApiSchema.status(202)),
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Queue again the deliveries that failed since a time").annotate(
      OpenApi.Description,
      "Every delivery of this webhook created at or after `since` (and before `until`, if given) that failed " +
        "or was cancelled is queued again with a fresh attempt budget and the same delivery id; answers how " +
        "many (202). A deactivated webhook receives them once enabled."
    )
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
