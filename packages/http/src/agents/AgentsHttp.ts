/** Handlers of `/agents` (D23): translate and call `Agents`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { AgentAsk, Agents, ListAgents } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const AgentsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "agents">,
  never,
  Agents | AgentAsk | Authentication
> = HttpApiBuilder.group(Api, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    const ask = yield* AgentAsk
    return handlers
      .handle("create", ({ payload }) => agents.create(payload).pipe(withETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(agents.list(new ListAgents(urlParams)), toList))
      .handle("get", ({ path }) => agents.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          agents.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => agents.delete(path.id, options)))
      .handle("ask", ({ path, payload }) => ask.ask(path.id, payload))
  }))
