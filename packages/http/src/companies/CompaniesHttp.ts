/** Handlers of `/companies`: translate and call `Companies`. */
import { Companies, ListCompanies } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const CompaniesHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "companies">,
  never,
  Companies | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function*() {
    const companies = yield* Companies
    return handlers
      .handle("create", ({ payload }) => companies.create(payload).pipe(withETag))
      .handle("list", ({ query }) => Effect.flatMap(companies.list(new ListCompanies(query)), toList))
      .handle("get", ({ params }) => companies.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          companies.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) => companies.delete(params.id, options)))
  }))
