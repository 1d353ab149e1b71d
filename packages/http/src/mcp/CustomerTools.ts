/** MCP tools over customers: the reads of `/v1/customers`. */
import { Customer, CustomerId, Customers, ListCustomers, Principal, SearchText } from "@support-engine/core"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { DEFAULT_LIMIT, SearchLimit, SearchResult } from "./ConversationTools.js"
import { asTool, ToolFailed } from "./ToolAccess.js"

const SearchCustomers = Tool.make("search_customers", {
  description: "Search the workspace's customers by name, email or phone. Use it to find who a person is, or the " +
    "customer_id to look up. Returns `data` (customers: id, names, email, phone, locale, country, company_id, first " +
    "and last seen; best match first) and `meta` (total count and paging).",
  parameters: Schema.Struct({
    query: SearchText.annotate({
      description: "Words to search names, email and phone for (each word matches as a prefix)."
    }),
    limit: Schema.optionalKey(SearchLimit)
  }),
  success: SearchResult(Customer),
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Search customers").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

const GetCustomer = Tool.make("get_customer", {
  description: "Read one customer: names, email, phone, locale (the language to answer in), country, company and " +
    "when they were first and last seen. Use it to learn who wrote a conversation (its `customer_id`). Returns the " +
    "customer.",
  parameters: Schema.Struct({ customer_id: CustomerId.annotate({ description: "The customer's id (a UUID)." }) }),
  success: Customer,
  failure: ToolFailed,
  dependencies: [Principal]
}).annotate(Tool.Title, "Get a customer").annotate(Tool.Readonly, true).annotate(Tool.Destructive, false)

export const CustomerTools = Toolkit.make(SearchCustomers, GetCustomer)

export const CustomerToolsLive = CustomerTools.toLayer(Effect.gen(function*() {
  const customers = yield* Customers
  return CustomerTools.of({
    search_customers: ({ limit, query }) =>
      asTool(Effect.map(
        customers.list(new ListCustomers({ q: query, per_page: limit ?? DEFAULT_LIMIT })),
        ({ data, meta }) => ({ data, meta })
      )),
    get_customer: ({ customer_id }) => asTool(customers.get(customer_id))
  })
}))
