/** Handlers of `/companies` (D25): translate and call `Companies`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Companies, ListCompanies } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const CompaniesHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "companies">,
  never,
  Companies | Authentication
> = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function*() {
    const companies = yield* Companies
    return handlers
      .handle("create", ({ payload }) => companies.create(payload).pipe(withETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(companies.list(new ListCompanies(urlParams)), toList))
      .handle("get", ({ path }) => companies.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          companies.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => companies.delete(path.id, options)))
  }))
