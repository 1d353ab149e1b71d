/** Handlers of `/customers` (D24): translate and call `Customers`. */
import { HttpApiBuilder, type HttpApiGroup } from "@effect/platform"
import { Customers, ListCustomers } from "@support-engine/core"
import type { Layer } from "effect"
import { Effect } from "effect"
import { Api } from "../Api.js"
import type { Authentication } from "../shared/Authentication.js"
import { toList } from "../shared/Lists.js"

export const CustomersHttpLive: Layer.Layer<
  HttpApiGroup.ApiGroup<"support-engine", "customers">,
  never,
  Customers | Authentication
> = HttpApiBuilder.group(Api, "customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    return handlers
      .handle("create", ({ payload }) => customers.create(payload))
      .handle("list", ({ urlParams }) => Effect.flatMap(customers.list(new ListCustomers(urlParams)), toList))
      .handle("get", ({ path }) => customers.get(path.id))
      .handle("update", ({ path, payload }) => customers.update(path.id, payload))
      .handle("delete", ({ path }) => customers.delete(path.id))
  }))
