/** Handlers of `/customers` (D24): translate and call `Customers`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Customers, ListCustomers } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { withETag, writeOptions } from "../shared/ETags.js"
import { toList } from "../shared/Lists.js"

export const CustomersHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "customers">,
  never,
  Customers | Authentication
> = HttpApiBuilder.group(Api, "customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    return handlers
      .handle("create", ({ payload }) => customers.create(payload).pipe(withETag))
      .handle("list", ({ urlParams }) => Effect.flatMap(customers.list(new ListCustomers(urlParams)), toList))
      .handle("get", ({ path }) => customers.get(path.id).pipe(withETag))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(writeOptions, (options) =>
          customers.update(path.id, payload, options)).pipe(withETag))
      .handle("delete", ({ path }) =>
        Effect.flatMap(writeOptions, (options) => customers.delete(path.id, options)))
  }))
