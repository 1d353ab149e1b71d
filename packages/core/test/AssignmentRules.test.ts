/** The assignment rules of the specification and D27, as a matrix over the pure decision. */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { type AssignmentRequest, decideAssignment } from "../src/conversations/AssignmentRules.js"

const USER = "00000000-0000-7000-8000-0000000000a1"
const AGENT = "00000000-0000-7000-8000-0000000000b1"
const OTHER_AGENT = "00000000-0000-7000-8000-0000000000b2"

const base: AssignmentRequest = {
  channel: "chat",
  assigneeId: USER,
  assigneeType: undefined,
  names: "user",
  originalAgentId: null,
  creating: true,
  emailAgent: { id: null, isActive: false }
}

const ok = (r: Partial<AssignmentRequest>) => {
  const result = decideAssignment({ ...base, ...r })
  assert.isTrue(Result.isSuccess(result), JSON.stringify(result))
  return Result.getOrThrow(result)
}
const refused = (r: Partial<AssignmentRequest>) => {
  const result = decideAssignment({ ...base, ...r })
  assert.isTrue(Result.isFailure(result), JSON.stringify(result))
  const error = Result.getFailure(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
  return { tag: error._tag, code: error.code, status: error.status }
}

describe("assignment rules (D27)", () => {
  it("null leaves the conversation unassigned, whatever the type", () => {
    for (const channel of ["chat", "email"] as const) {
      assert.deepStrictEqual(ok({ channel, assigneeId: null, assigneeType: "agent", names: "nothing" }), {
        assignee_id: null,
        assignee_type: null,
        agent_id: null
      })
    }
  })

  it("a user of the workspace is always allowed, on either channel, with or without the type", () => {
    for (const channel of ["chat", "email"] as const) {
      for (const assigneeType of [undefined, null, "user"] as const) {
        assert.deepStrictEqual(ok({ channel, assigneeType }), {
          assignee_id: USER,
          assignee_type: "user",
          agent_id: null
        })
      }
    }
  })

  it("an id that names nothing in the workspace (unknown, or another workspace's) is INVALID_ASSIGNEE", () => {
    for (const names of ["nothing"] as const) {
      assert.deepStrictEqual(refused({ names }), { tag: "InvalidAssignee", code: "INVALID_ASSIGNEE", status: 400 })
      assert.deepStrictEqual(refused({ names, assigneeType: "agent", channel: "email" }).code, "INVALID_ASSIGNEE")
    }
  })

  it("a type that does not match what the id names is INVALID_ASSIGNEE_TYPE", () => {
    assert.deepStrictEqual(refused({ assigneeType: "agent" }), {
      tag: "InvalidAssigneeType",
      code: "INVALID_ASSIGNEE_TYPE",
      status: 400
    })
    assert.strictEqual(
      refused({ assigneeId: AGENT, names: "agent", assigneeType: "user" }).code,
      "INVALID_ASSIGNEE_TYPE"
    )
  })

  it("chat: on create without agent_id an agent assignee becomes the original chat agent", () => {
    assert.deepStrictEqual(ok({ assigneeId: AGENT, names: "agent" }), {
      assignee_id: AGENT,
      assignee_type: "agent",
      agent_id: AGENT
    })
  })

  it("chat: only the original chat agent, later or on create with agent_id", () => {
    const later = { creating: false, originalAgentId: AGENT, names: "agent" as const }
    assert.deepStrictEqual(ok({ ...later, assigneeId: AGENT }).agent_id, AGENT)
    assert.strictEqual(refused({ ...later, assigneeId: OTHER_AGENT }).code, "INVALID_ASSIGNEE_TYPE")
    assert.strictEqual(
      refused({ originalAgentId: AGENT, assigneeId: OTHER_AGENT, names: "agent" }).code,
      "INVALID_ASSIGNEE_TYPE"
    )
    assert.strictEqual(refused({ creating: false, assigneeId: AGENT, names: "agent" }).code, "INVALID_ASSIGNEE_TYPE")
  })

  it("email: the workspace's active email agent only", () => {
    const email = { channel: "email" as const, assigneeId: AGENT, names: "agent" as const }
    assert.deepStrictEqual(ok({ ...email, emailAgent: { id: AGENT, isActive: true } }), {
      assignee_id: AGENT,
      assignee_type: "agent",
      agent_id: null
    })
    assert.strictEqual(refused({ ...email, emailAgent: { id: AGENT, isActive: false } }).code, "INVALID_ASSIGNEE_TYPE")
    assert.strictEqual(
      refused({ ...email, emailAgent: { id: OTHER_AGENT, isActive: true } }).code,
      "INVALID_ASSIGNEE_TYPE"
    )
    assert.strictEqual(refused({ ...email, emailAgent: { id: null, isActive: false } }).code, "INVALID_ASSIGNEE_TYPE")
  })
})
