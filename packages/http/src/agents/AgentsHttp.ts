/** Handlers of `/agents` (D23): translate and call `Agents`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Agents, ListAgents } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const AgentsHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "agents">,
  never,
  Agents | Authentication
> = HttpApiBuilder.group(Api, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    return handlers
      .handle("create", ({ payload }) => agents.create(payload))
      .handle("list", ({ urlParams }) => Effect.flatMap(agents.list(new ListAgents(urlParams)), toList))
      .handle("get", ({ path }) => agents.get(path.id))
      .handle("update", ({ path, payload }) => agents.update(path.id, payload))
      .handle("delete", ({ path }) => agents.delete(path.id))
  }))
