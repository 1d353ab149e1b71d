/** Handlers of `/agents`: translate and call `Agents`. */
import { AgentAsk, Agents, ListAgents } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const AgentsHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "agents">,
  never,
  Agents | AgentAsk | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    const ask = yield* AgentAsk
    return handlers
      .handle("create", ({ payload }) => agents.create(payload).pipe(withETag))
      .handle("list", ({ query }) => Effect.flatMap(agents.list(new ListAgents(query)), toList))
      .handle("get", ({ params }) => agents.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          agents.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) => agents.delete(params.id, options)))
      .handle("ask", ({ params, payload }) => ask.ask(params.id, payload))
  }))
