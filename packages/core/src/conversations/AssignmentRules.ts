/**
 * The assignment rules of the contract, as a pure function of what the caller already looked up,
 * so the whole matrix is testable without storage. `Conversations` applies it on create and on every reassignment.
 */
import { Result } from "effect"
import { InvalidAssignee, InvalidAssigneeType } from "../shared/Errors.js"

export type Channel = "email" | "chat"
export type AssigneeKind = "user" | "agent"

export interface AssignmentRequest {
  readonly channel: Channel
  readonly assigneeId: string | null
  readonly assigneeType: AssigneeKind | null | undefined
  /** What `assigneeId` names in the token's workspace: a user, an agent, or nothing (missing or foreign). */
  readonly names: AssigneeKind | "nothing"
  /** The conversation's original chat agent (on create: the `agent_id` given, if any). */
  readonly originalAgentId: string | null
  /** Creating: an agent assignee of a chat conversation without an original agent becomes it. */
  readonly creating: boolean
  readonly emailAgent: { readonly id: string | null; readonly isActive: boolean }
}

export interface Assignment {
  readonly assignee_id: string | null
  readonly assignee_type: AssigneeKind | null
  /** The original chat agent after the assignment (unchanged unless set on create). */
  readonly agent_id: string | null
}

const wrongType = (message: string) => Result.fail(new InvalidAssigneeType({ message }))

export const decideAssignment = (
  r: AssignmentRequest
): Result.Result<Assignment, InvalidAssignee | InvalidAssigneeType> => {
  if (r.assigneeId === null) {
    return Result.succeed({ assignee_id: null, assignee_type: null, agent_id: r.originalAgentId })
  }
  if (r.names === "nothing") {
    return Result.fail(new InvalidAssignee({ message: "The assignee is not a user or an agent of this workspace." }))
  }
  if (r.assigneeType !== undefined && r.assigneeType !== null && r.assigneeType !== r.names) {
    return wrongType(`The assignee is a ${r.names}, not a ${r.assigneeType}.`)
  }
  const assigned = { assignee_id: r.assigneeId, assignee_type: r.names }
  if (r.names === "user") return Result.succeed({ ...assigned, agent_id: r.originalAgentId })
  if (r.channel === "chat") {
    if (r.originalAgentId === null && r.creating) return Result.succeed({ ...assigned, agent_id: r.assigneeId })
    return r.originalAgentId === r.assigneeId
      ? Result.succeed({ ...assigned, agent_id: r.originalAgentId })
      : wrongType("A chat conversation can only be assigned to its original chat agent.")
  }
  return r.emailAgent.id === r.assigneeId && r.emailAgent.isActive
    ? Result.succeed({ ...assigned, agent_id: r.originalAgentId })
    : wrongType("An email conversation can only be assigned to the workspace's active email agent.")
}
