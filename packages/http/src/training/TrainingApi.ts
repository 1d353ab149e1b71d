/** `/training-data`: items, URL processing and lookup, resync. */
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
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
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

/** The url items `POST /training-data/url/process` created, one per distinct valid URL. */
export const ProcessedUrls = Schema.Struct({ data: Schema.Array(TrainingDataItem) }).annotate({
  identifier: "ProcessedUrls"
})

/** The answer of `GET /training-data/url/exists`: whether the workspace has that URL, after normalisation. */
export const UrlExists = Schema.Struct({ exists: Schema.Boolean }).annotate({ identifier: "UrlExists" })

export class TrainingApi extends HttpApiGroup.make("training")
  .add(
    HttpApiEndpoint.post("create", "/training-data", {
      payload: payload(CreateTrainingData),
      success: TrainingDataItem.pipe(HttpApiSchema.status(201)),
      error: [UrlDiscoveryRequiredResponse, InvalidTypeResponse, InvalidAgentResponse]
    }).annotate(OpenApi.Summary, "Create training data")
  )
  .add(
    HttpApiEndpoint.post("processUrls", "/training-data/url/process", {
      payload: payload(ProcessUrls),
      success: ProcessedUrls.pipe(HttpApiSchema.status(201)),
      error: [NoUrlsProvidedResponse, InvalidAgentResponse]
    }).annotate(OpenApi.Summary, "Process training URLs")
  )
  .add(
    HttpApiEndpoint.get("urlExists", "/training-data/url/exists", {
      query: parameters(UrlExistsQuery.fields),
      success: UrlExists
    }).annotate(OpenApi.Summary, "Check whether a training URL exists")
  )
  .add(
    HttpApiEndpoint.get("list", "/training-data", {
      query: listQuery({ type: ListTrainingData.fields.type, status: ListTrainingData.fields.status }),
      success: ListEnvelope(TrainingDataItem, "TrainingDataList")
    }).annotate(OpenApi.Summary, "List training data")
  )
  .add(
    HttpApiEndpoint.get("get", "/training-data/:id", {
      params: path,
      success: TrainingDataItem,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Get training data")
  )
  .add(
    HttpApiEndpoint.put("update", "/training-data/:id", {
      params: path,
      payload: payload(UpdateTrainingData),
      success: TrainingDataItem,
      error: [NotFoundResponse, InvalidAgentResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update training data")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/training-data/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete training data")
  )
  .add(
    HttpApiEndpoint.post("resync", "/training-data/:id/resync-now", {
      params: path,
      success: ResyncStarted,
      error: [NotFoundResponse, BusinessStateErrorResponse]
    }).annotate(OpenApi.Summary, "Resync training data now")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Training data")
  .annotate(
    OpenApi.Description,
    "What agents learn from: text, qa, file and video items; url items only through /training-data/url/process. " +
      "Items start queued and are processed in the background."
  )
{}
