/** Handlers of `/customers`: translate and call `Customers`. */
import { CustomerExports, Customers, ListCustomers } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { Api } from "../Api.js"
import type { ApiErrors } from "../shared/ApiErrors.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const CustomersHttpLive: Layer.Layer<
  HttpApiGroup.Service<"support-engine", "customers">,
  never,
  Customers | CustomerExports | Authentication | ApiErrors
> = HttpApiBuilder.group(Api, "customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    const exports = yield* CustomerExports
    return handlers
      .handle("create", ({ payload }) => customers.create(payload).pipe(withETag))
      .handle("list", ({ query }) => Effect.flatMap(customers.list(new ListCustomers(query)), toList))
      .handle("get", ({ params }) => customers.get(params.id).pipe(withETag))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          customers.update(params.id, payload, options)).pipe(withETag))
      .handle("delete", ({ params }) =>
        Effect.flatMap(writeOptions, (options) => customers.delete(params.id, options)))
      .handle("export", ({ params }) => exports.export(params.id))
      .handle("erase", ({ params }) => customers.erase(params.id))
  }))
