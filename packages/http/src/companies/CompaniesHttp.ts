/** Handlers of `/companies` (D25): translate and call `Companies`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Companies, ListCompanies } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const CompaniesHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "companies">,
  never,
  Companies | Authentication
> = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function*() {
    const companies = yield* Companies
    return handlers
      .handle("create", ({ payload }) => companies.create(payload))
      .handle("list", ({ urlParams }) => Effect.flatMap(companies.list(new ListCompanies(urlParams)), toList))
      .handle("get", ({ path }) => companies.get(path.id))
      .handle("update", ({ path, payload }) => companies.update(path.id, payload))
      .handle("delete", ({ path }) => companies.delete(path.id))
  }))
