/** `/agents`: create, list, read, update, delete and ask; copilot agents cannot be updated or deleted. */
import { Agent, AgentId, AskAgent, AskAnswer, BooleanFlag, CreateAgent, UpdateAgent } from "@support-engine/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { ForbiddenResponse, NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(AgentId)

/** The string member of core's `BooleanFlag`: a query string carries `true`/`false`/`1`/`0`, never a boolean. */
const QueryFlag = BooleanFlag.members[1]

export class AgentsApi extends HttpApiGroup.make("agents")
  .add(
    HttpApiEndpoint.post("create", "/agents", {
      payload: payload(CreateAgent),
      success: Agent.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create an agent")
  )
  .add(
    HttpApiEndpoint.get("list", "/agents", {
      query: listQuery({ is_active: Schema.optionalKey(QueryFlag) }),
      success: ListEnvelope(Agent, "AgentList")
    }).annotate(OpenApi.Summary, "List agents")
  )
  .add(
    HttpApiEndpoint.get("get", "/agents/:id", { params: path, success: Agent, error: NotFoundResponse }).annotate(
      OpenApi.Summary,
      "Get an agent"
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/agents/:id", {
      params: path,
      payload: payload(UpdateAgent),
      success: Agent,
      error: [NotFoundResponse, ForbiddenResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update an agent")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/agents/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, ForbiddenResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete an agent")
  )
  .add(
    HttpApiEndpoint.post("ask", "/agents/:id/ask", {
      params: path,
      payload: payload(AskAgent),
      success: AskAnswer,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Ask an agent").annotate(
      OpenApi.Description,
      "What the agent would answer a customer, from its training data and the published articles, without a " +
        "conversation: `answer` with its `citations`, or the handoff (`escalation`) it would make instead. Needs " +
        "the read ability; stores nothing."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Agents")
  .annotate(
    OpenApi.Description,
    "AI support agents. The model is set by the engine and read-only; copilot agents cannot be updated or " +
      "deleted (403 FORBIDDEN)."
  )
{}
