/** `/companies` (D25). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Company, CreateCompany, UpdateCompany } from "@support-engine/core/Company"
import { CompanyId } from "@support-engine/core/Ids"
import { Authentication } from "./Authentication.js"
import { NotFoundResponse } from "./ErrorResponses.js"
import { ListEnvelope, listQuery } from "./Lists.js"
import { idPath, payload } from "./Requests.js"

const path = idPath(CompanyId)

export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.post("create", "/companies")
      .setPayload(payload(CreateCompany))
      .addSuccess(Company, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/companies")
      .setUrlParams(listQuery({}))
      .addSuccess(ListEnvelope(Company, "CompanyList"))
  )
  .add(
    HttpApiEndpoint.get("get", "/companies/:id")
      .setPath(path)
      .addSuccess(Company)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.put("update", "/companies/:id")
      .setPath(path)
      .setPayload(payload(UpdateCompany))
      .addSuccess(Company)
      .addError(NotFoundResponse)
  )
  .add(
    HttpApiEndpoint.del("delete", "/companies/:id")
      .setPath(path)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Companies")
  .annotate(OpenApi.Description, "Companies customers belong to. Deleting one keeps its customers (D25).")
{}
