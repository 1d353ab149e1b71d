/** Companies (spec "Company"). */
import { Schema } from "effect"
import { CompanyId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString, HttpUrl } from "../shared/Validation.js"

export class Company extends Model.Class<Company>("Company")({
  id: CompanyId,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  avatar_url: Schema.NullOr(Schema.String),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

const fields = {
  domain: Schema.optionalKey(Schema.NullOr(BoundedString(255))),
  country: Schema.optionalKey(Schema.NullOr(BoundedString(255))),
  avatar_url: Schema.optionalKey(Schema.NullOr(HttpUrl))
}

export class CreateCompany extends Model.Class<CreateCompany>("CreateCompany")({
  name: BoundedString(255).check(Schema.isMinLength(1)),
  ...fields
}) {}

/** `PUT /companies/{id}`: present fields change, absent ones stay. */
export class UpdateCompany extends Model.Class<UpdateCompany>("UpdateCompany")({
  name: Schema.optionalKey(BoundedString(255).check(Schema.isMinLength(1))),
  ...fields
}) {}

export class ListCompanies extends Model.Class<ListCompanies>("ListCompanies")({
  ...PageRequest.fields
}) {}
