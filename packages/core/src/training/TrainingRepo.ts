/** Storage port for training data, folders and discovered pages. Scoped by workspace except the worker's claim. */
import { Context, type DateTime, type Effect, type Option } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { TrainingDataId, TrainingFolderId, WorkspaceId } from "../shared/Ids.js"
import type { Slice, SliceRequest } from "../shared/Repository.js"
import type { TrainingDataItem, TrainingFolder, TrainingStatus, TrainingType, UrlPage } from "./TrainingData.js"

export interface TrainingFilter {
  readonly type?: TrainingType | undefined
  readonly status?: TrainingStatus | undefined
}

export class TrainingRepo extends Context.Service<TrainingRepo, {
  /** `normalizedSource` is a url item's source as `normalizeUrl` makes it (null for other types). */
  readonly insert: (
    workspaceId: WorkspaceId,
    item: TrainingDataItem,
    normalizedSource: string | null
  ) => Effect.Effect<void, PersistenceError>
  /** Writes the item's fields and replaces its agents. */
  readonly update: (workspaceId: WorkspaceId, item: TrainingDataItem) => Effect.Effect<void, PersistenceError>
  readonly findById: (
    workspaceId: WorkspaceId,
    id: TrainingDataId
  ) => Effect.Effect<Option.Option<TrainingDataItem>, PersistenceError>
  readonly delete: (workspaceId: WorkspaceId, id: TrainingDataId) => Effect.Effect<boolean, PersistenceError>
  readonly list: (
    workspaceId: WorkspaceId,
    filter: TrainingFilter,
    slice: SliceRequest
  ) => Effect.Effect<Slice<TrainingDataItem>, PersistenceError>

  readonly insertFolder: (workspaceId: WorkspaceId, folder: TrainingFolder) => Effect.Effect<void, PersistenceError>
  readonly findFolder: (
    workspaceId: WorkspaceId,
    id: TrainingFolderId
  ) => Effect.Effect<Option.Option<TrainingFolder>, PersistenceError>
  readonly listFolders: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<TrainingFolder>, PersistenceError>

  /** Replaces the pages discovered under an item; `normalized` holds each page's URL as `normalizeUrl` makes it. */
  readonly replacePages: (
    workspaceId: WorkspaceId,
    itemId: TrainingDataId,
    pages: ReadonlyArray<{ readonly page: UrlPage; readonly normalized: string }>
  ) => Effect.Effect<void, PersistenceError>
  readonly pages: (
    workspaceId: WorkspaceId,
    itemId: TrainingDataId
  ) => Effect.Effect<ReadonlyArray<UrlPage>, PersistenceError>
  /** A url item's source or a discovered page has this normalised URL. */
  readonly urlExists: (workspaceId: WorkspaceId, normalized: string) => Effect.Effect<boolean, PersistenceError>

  /**
   * Claims the oldest item that is queued, or processing with an expired lease (its worker died), across every
   * workspace: sets it processing with a lease until `leaseUntil`. One claimer wins per item.
   */
  readonly claimNext: (
    now: DateTime.Utc,
    leaseUntil: DateTime.Utc
  ) => Effect.Effect<
    Option.Option<{ readonly workspaceId: WorkspaceId; readonly item: TrainingDataItem }>,
    PersistenceError
  >
}>()("@support-engine/core/TrainingRepo") {}
