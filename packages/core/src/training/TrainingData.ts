/** Training data, training folders and discovered URL pages (spec "Training data item"). */
import { Schema } from "effect"
import { Prohibited } from "../agents/Agent.js"
import { AgentId, TrainingDataId, TrainingFolderId, UrlPageId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString, HttpUrl, Text } from "../shared/Validation.js"

export const TrainingType = Schema.Literals(["text", "url", "file", "video", "qa"])
export type TrainingType = typeof TrainingType.Type
export const TrainingStatus = Schema.Literals(["queued", "processing", "completed", "failed"])
export type TrainingStatus = typeof TrainingStatus.Type

/**
 * A training data item. Beside the specified fields it returns `agent_ids` (the agents it trains) and the content
 * of its type: `content` for text, `question`/`answer` for qa (null otherwise).
 */
export class TrainingDataItem extends Model.Class<TrainingDataItem>("TrainingDataItem")({
  id: TrainingDataId,
  type: TrainingType,
  source: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  slug: Schema.String,
  is_processed: Schema.Boolean,
  status: TrainingStatus,
  training_folder_id: Schema.NullOr(TrainingFolderId),
  agent_ids: Schema.Array(AgentId),
  content: Schema.NullOr(Schema.String),
  question: Schema.NullOr(Schema.String),
  answer: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export class TrainingFolder extends Model.Class<TrainingFolder>("TrainingFolder")({
  id: TrainingFolderId,
  name: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

export const UrlPageStatus = Schema.Literals(["queued", "completed", "failed"])

/** A page discovered under a url item. */
export class UrlPage extends Model.Class<UrlPage>("UrlPage")({
  id: UrlPageId,
  training_data_id: TrainingDataId,
  url: Schema.String,
  status: UrlPageStatus,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

/** 1 MiB of text content, like a message. */
const Content = BoundedString(1_048_576).check(Schema.isMinLength(1))
const Title = Schema.NullOr(BoundedString(255))
const AgentIds = Schema.Array(AgentId).check(Schema.isMaxLength(100))

/**
 * `POST /training-data`. `type` is any string here: url is a 422 URL_DISCOVERY_REQUIRED and anything else
 * unknown a 400 INVALID_TYPE, decided by the service. Which content fields are required depends on the type.
 */
export class CreateTrainingData extends Model.Class<CreateTrainingData>("CreateTrainingData")({
  type: BoundedString(50),
  title: Schema.optionalKey(Title),
  description: Schema.optionalKey(Schema.NullOr(Text)),
  content: Schema.optionalKey(Content),
  question: Schema.optionalKey(Text.check(Schema.isMinLength(1))),
  answer: Schema.optionalKey(Text.check(Schema.isMinLength(1))),
  source: Schema.optionalKey(HttpUrl),
  agent_ids: Schema.optionalKey(AgentIds),
  training_folder_id: Schema.optionalKey(Schema.NullOr(TrainingFolderId))
}) {}

/** `POST /training-data/url/process`: one url item per valid URL; invalid entries are skipped. */
export class ProcessUrls extends Model.Class<ProcessUrls>("ProcessUrls")({
  urls: Schema.Array(BoundedString(2048)).check(Schema.isMaxLength(100)),
  agent_ids: Schema.optionalKey(AgentIds),
  training_folder_id: Schema.optionalKey(Schema.NullOr(TrainingFolderId))
}) {}

/** `PUT /training-data/{id}`: title, description and agent_ids only; `metadata` is refused with a 422. */
export class UpdateTrainingData extends Model.Class<UpdateTrainingData>("UpdateTrainingData")({
  title: Schema.optionalKey(Title),
  description: Schema.optionalKey(Schema.NullOr(Text)),
  agent_ids: Schema.optionalKey(AgentIds),
  metadata: Prohibited
}) {}

/** `GET /training-data`. */
export class ListTrainingData extends Model.Class<ListTrainingData>("ListTrainingData")({
  ...PageRequest.fields,
  type: Schema.optionalKey(TrainingType),
  status: Schema.optionalKey(TrainingStatus)
}) {}

/** `GET /training-data/url/exists?url=`. */
export class UrlExistsQuery extends Model.Class<UrlExistsQuery>("UrlExistsQuery")({
  url: HttpUrl
}) {}

export class CreateTrainingFolder extends Model.Class<CreateTrainingFolder>("CreateTrainingFolder")({
  name: BoundedString(255).check(Schema.isMinLength(1))
}) {}

/** The answer of `POST /training-data/{id}/resync-now`. */
export class ResyncStarted extends Model.Class<ResyncStarted>("ResyncStarted")({
  success: Schema.Literal(true),
  message: Schema.String,
  data: Schema.Struct({ training_data_id: TrainingDataId, urls_count: Schema.Int })
}) {}
