/** `/customers` (spec, D19, D24). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { CreateCustomer, Customer, CustomerId, ListCustomers, UpdateCustomer } from "@support-engine/core"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(CustomerId)

/** `GET /customers`; exported so the bench's floor server serves the same endpoint. */
export const listCustomers = HttpApiEndpoint.get("list", "/customers")
  .annotate(OpenApi.Summary, "List customers")
  .setUrlParams(
    listQuery({
      email: ListCustomers.fields.email,
      company_id: ListCustomers.fields.company_id,
      q: ListCustomers.fields.q
    })
  )
  .addSuccess(ListEnvelope(Customer, "CustomerList"))

/** `GET /customers/{id}`; exported so the bench's floor server serves the same endpoint. */
export const getCustomer = HttpApiEndpoint.get("get", "/customers/:id")
  .annotate(OpenApi.Summary, "Get a customer")
  .setPath(path)
  .addSuccess(Customer)
  .addError(NotFoundResponse)

export class CustomersApi extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.post("create", "/customers")
      .annotate(OpenApi.Summary, "Create a customer")
      .setPayload(payload(CreateCustomer))
      .addSuccess(Customer, { status: 201 })
  )
  .add(listCustomers)
  .add(getCustomer)
  .add(
    HttpApiEndpoint.put("update", "/customers/:id")
      .annotate(OpenApi.Summary, "Update a customer")
      .setPath(path)
      .setPayload(payload(UpdateCustomer))
      .addSuccess(Customer)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/customers/:id")
      .annotate(OpenApi.Summary, "Delete a customer")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Customers")
  .annotate(
    OpenApi.Description,
    "The people a workspace supports. `email` is unique per workspace; deleting a customer keeps its " +
      "conversations and messages."
  )
{}
