/** `/companies`: create, list, read, update, delete; deleting one leaves its customers without a company. */
import { Company, CompanyId, CreateCompany, UpdateCompany } from "@support-engine/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(CompanyId)

export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.post("create", "/companies", {
      payload: payload(CreateCompany),
      success: Company.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create a company")
  )
  .add(
    HttpApiEndpoint.get("list", "/companies", { query: listQuery({}), success: ListEnvelope(Company, "CompanyList") })
      .annotate(OpenApi.Summary, "List companies")
  )
  .add(
    HttpApiEndpoint.get("get", "/companies/:id", { params: path, success: Company, error: NotFoundResponse }).annotate(
      OpenApi.Summary,
      "Get a company"
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/companies/:id", {
      params: path,
      payload: payload(UpdateCompany),
      success: Company,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Update a company")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/companies/:id", {
      params: path,
      success: HttpApiSchema.NoContent,
      error: [NotFoundResponse, PreconditionFailedResponse]
    }).annotate(OpenApi.Summary, "Delete a company")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Companies")
  .annotate(OpenApi.Description, "Companies customers belong to. Deleting one keeps its customers.")
{}
