/** `/companies` (D25). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Company, CompanyId, CreateCompany, UpdateCompany } from "@support-engine/core"
import { Authentication } from "../shared/Authentication.js"
import { NotFoundResponse, PreconditionFailedResponse } from "../shared/ErrorResponses.js"
import { ListEnvelope, listQuery } from "../shared/Lists.js"
import { idPath, payload } from "../shared/Requests.js"

const path = idPath(CompanyId)

export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.post("create", "/companies")
      .annotate(OpenApi.Summary, "Create a company")
      .setPayload(payload(CreateCompany))
      .addSuccess(Company, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/companies")
      .annotate(OpenApi.Summary, "List companies")
      .setUrlParams(listQuery({}))
      .addSuccess(ListEnvelope(Company, "CompanyList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/companies/:id")
      .annotate(OpenApi.Summary, "Get a company")
      .setPath(path)
      .addSuccess(Company)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/companies/:id")
      .annotate(OpenApi.Summary, "Update a company")
      .setPath(path)
      .setPayload(payload(UpdateCompany))
      .addSuccess(Company)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/companies/:id")
      .annotate(OpenApi.Summary, "Delete a company")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(PreconditionFailedResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Companies")
  .annotate(OpenApi.Description, "Companies customers belong to. Deleting one keeps its customers.")
{}
