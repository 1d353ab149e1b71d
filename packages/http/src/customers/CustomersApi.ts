/** `/customers`: create, list (by email, company or search), read, update, delete and export. */
import {
  CreateCustomer,
  Customer,
  CustomerErasure,
  CustomerExport,
  CustomerId,
  ListCustomers,
  UpdateCustomer
} from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(CustomerId)

/** `GET /customers`; exported so the bench's floor server serves the same endpoint. */
export const listCustomers = HttpApiEndpoint.get("list", "/customers", {
  query: listQuery({
    email: ListCustomers.fields.email,
    company_id: ListCustomers.fields.company_id,
    q: ListCustomers.fields.q
  }),
  success: ListEnvelope(Customer, "CustomerList")
}).annotate(OpenApi.Summary, "List customers")

/** `GET /customers/{id}`; exported so the bench's floor server serves the same endpoint. */
export const getCustomer = HttpApiEndpoint.get("get", "/customers/:id", {
  params: path,
  success: Customer,
  error: NotFoundResponse
}).annotate(OpenApi.Summary, "Get a customer")

export class CustomersApi extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.post("create", "/customers", {
      payload: payload(CreateCustomer),
      success: Customer.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create a customer")
  )
  .add(listCustomers)
  .add(getCustomer)
  .add(
    HttpApiEndpoint.put("update", "/customers/:id", {
      params: path,
      payload: payload(UpdateCustomer),
      success: Customer,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update a customer")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/customers/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete a customer")
  )
  .add(
    HttpApiEndpoint.get("export", "/customers/:id/export", {
      params: path,
      success: CustomerExport,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Export a customer's personal data").annotate(
      OpenApi.Description,
      "The customer, each of their conversations and each conversation's messages, oldest first. " +
        "The customers read ability suffices."
    )
  )
  .add(
    HttpApiEndpoint.post("erase", "/customers/:id/erase", {
      params: path,
      success: CustomerErasure,
      error: NotFoundResponse
    }).annotate(OpenApi.Summary, "Erase a customer's personal data").annotate(
      OpenApi.Description,
      "Removes, in one transaction, the customer, their conversations and messages, and their text from every " +
        "search index. Events that carried their data keep `id`, `event`, `occurred_at` and `actor` with `data` " +
        "replaced by `{\"redacted\": true}`; those events' deliveries not yet sent are cancelled. Records " +
        "`customer.erased`. Afterwards the customer is 404 and their email may be used again. Needs the customers " +
        "write ability."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Customers")
  .annotate(
    OpenApi.Description,
    "The people a workspace supports. `email` is unique per workspace; deleting a customer keeps its " +
      "conversations and messages, erasing one removes everything of theirs."
  )
{}
