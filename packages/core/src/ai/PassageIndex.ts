/** Storage port of the passage index that agents retrieve from. */
import { Context, type Effect } from "effect"
import type { PersistenceError } from "../shared/Errors.js"
import type { AgentId, WorkspaceId } from "../shared/Ids.js"
import type { Passage } from "./Answer.js"

export interface RetrieveQuery {
  /** The agent whose linked training items count, beside the items linked to no agent. */
  readonly agentId: AgentId
  /** Search words, already split; an empty list retrieves nothing. */
  readonly words: ReadonlyArray<string>
  /**
   * The question's language (a BCP-47 locale): passages in that language also match the words' stems where the
   * database stems it. Without one, words match as written.
   */
  readonly locale?: string | null | undefined
  readonly limit: number
}

export class PassageIndex extends Context.Service<PassageIndex, {
  /**
   * The best passages of the workspace for the words, best first: completed text and Q&A training items linked to
   * the agent or to no agent, and every translation of every published article. Nothing of another workspace.
   */
  readonly retrieve: (
    workspaceId: WorkspaceId,
    query: RetrieveQuery
  ) => Effect.Effect<ReadonlyArray<Passage>, PersistenceError>
}>()("@support-engine/core/PassageIndex") {}
