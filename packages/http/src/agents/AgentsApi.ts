/** `/agents` (spec, D23). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Agent, AgentId, AskAgent, AskAnswer, BooleanFlag, CreateAgent, UpdateAgent } from "@support-engine/core"
import { Schema } from "effect"
import { Authentication } from "../shared/Authentication.js"
import { ForbiddenResponse, NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(AgentId)

/** The string member of core's `BooleanFlag`: a query string carries `true`/`false`/`1`/`0`, never a boolean. */
const QueryFlag = BooleanFlag.members[1]

export class AgentsApi extends HttpApiGroup.make("agents")
  .add(
    HttpApiEndpoint.post("create", "/agents")
      .annotate(OpenApi.Summary, "Create an agent")
      .setPayload(payload(CreateAgent))
      .addSuccess(Agent, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/agents")
      .annotate(OpenApi.Summary, "List agents")
      .setUrlParams(listQuery({ is_active: Schema.optional(QueryFlag) }))
      .addSuccess(ListEnvelope(Agent, "AgentList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/agents/:id")
      .annotate(OpenApi.Summary, "Get an agent")
      .setPath(path)
      .addSuccess(Agent)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/agents/:id")
      .annotate(OpenApi.Summary, "Update an agent")
      .setPath(path)
      .setPayload(payload(UpdateAgent))
      .addSuccess(Agent)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/agents/:id")
      .annotate(OpenApi.Summary, "Delete an agent")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(ForbiddenResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.post("ask", "/agents/:id/ask")
      .annotate(OpenApi.Summary, "Ask an agent")
      .annotate(
        OpenApi.Description,
        "What the agent would answer a customer, from its training data and the published articles, without a " +
          "conversation: `answer` with its `citations`, or the handoff (`escalation`) it would make instead. Needs " +
          "the read ability; stores nothing."
      )
      .setPath(path)
      .setPayload(payload(AskAgent))
      .addSuccess(AskAnswer)
      .addError(NotFoundResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Agents")
  .annotate(
    OpenApi.Description,
    "AI support agents. The model is set by the engine and read-only; copilot agents cannot be updated or " +
      "deleted (403 FORBIDDEN)."
  )
{}
