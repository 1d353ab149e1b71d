/** `/training-data` (spec, D20, D30, D31). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  CreateTrainingData,
  ListTrainingData,
  ProcessUrls,
  ResyncStarted,
  TrainingDataId,
  TrainingDataItem,
  UpdateTrainingData,
  UrlExistsQuery
} from "@support-engine/core"
import { Schema } from "effect"
import { Authentication } from "../shared/Authentication.js"
import {
  BusinessStateErrorResponse,
  InvalidAgentResponse,
  InvalidTypeResponse,
  NotFoundResponse,
  NoUrlsProvidedResponse,
  PreconditionFailedResponse,
  UrlDiscoveryRequiredResponse
} from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, parameters, payload } from "../shared/Requests.js"

const path = idPath(TrainingDataId)

/** The url items `POST /training-data/url/process` created, one per distinct valid URL (D30). */
export const ProcessedUrls = Schema.Struct({ data: Schema.Array(TrainingDataItem) }).annotations({
  identifier: "ProcessedUrls"
})

/** The answer of `GET /training-data/url/exists` (D20). */
export const UrlExists = Schema.Struct({ exists: Schema.Boolean }).annotations({ identifier: "UrlExists" })

export class TrainingApi extends HttpApiGroup.make("training")
  .add(
    HttpApiEndpoint.post("create", "/training-data")
      .annotate(OpenApi.Summary, "Create training data")
      .setPayload(payload(CreateTrainingData))
      .addSuccess(TrainingDataItem, { status: 201 })
      .addError(UrlDiscoveryRequiredResponse)
      .addError(InvalidTypeResponse)
      .addError(InvalidAgentResponse)
  )
  .add(
    HttpApiEndpoint.post("processUrls", "/training-data/url/process")
      .annotate(OpenApi.Summary, "Process training URLs")
      .setPayload(payload(ProcessUrls))
      .addSuccess(ProcessedUrls, { status: 201 })
      .addError(NoUrlsProvidedResponse)
      .addError(InvalidAgentResponse)
  )
  .add(
    HttpApiEndpoint.get("urlExists", "/training-data/url/exists")
      .annotate(OpenApi.Summary, "Check whether a training URL exists")
      .setUrlParams(parameters(UrlExistsQuery.fields))
      .addSuccess(UrlExists)
  )
  .add(
    HttpApiEndpoint.get("list", "/training-data")
      .annotate(OpenApi.Summary, "List training data")
      .setUrlParams(listQuery({ type: ListTrainingData.fields.type, status: ListTrainingData.fields.status }))
      .addSuccess(ListEnvelope(TrainingDataItem, "TrainingDataList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/training-data/:id")
      .annotate(OpenApi.Summary, "Get training data")
      .setPath(path)
      .addSuccess(TrainingDataItem)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/training-data/:id")
      .annotate(OpenApi.Summary, "Update training data")
      .setPath(path)
      .setPayload(payload(UpdateTrainingData))
      .addSuccess(TrainingDataItem)
      .addError(NotFoundResponse)
      .addError(InvalidAgentResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/training-data/:id")
      .annotate(OpenApi.Summary, "Delete training data")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.post("resync", "/training-data/:id/resync-now")
      .annotate(OpenApi.Summary, "Resync training data now")
      .setPath(path)
      .addSuccess(ResyncStarted)
      .addError(NotFoundResponse)
      .addError(BusinessStateErrorResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Training data")
  .annotate(
    OpenApi.Description,
    "What agents learn from: text, qa, file and video items; url items only through /training-data/url/process. " +
      "Items start queued and are processed in the background."
  )
{}
