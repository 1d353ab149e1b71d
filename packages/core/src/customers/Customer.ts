/** Customers (spec "Customer"). */
import { Schema } from "effect"
import { CompanyId, CustomerId } from "../shared/Ids.js"
import * as Model from "../shared/Model.js"
import { PageRequest } from "../shared/Pagination.js"
import { SearchText } from "../shared/TextSearch.js"
import { Timestamp } from "../shared/Timestamp.js"
import { BoundedString, Email } from "../shared/Validation.js"

export class Customer extends Model.Class<Customer>("Customer")({
  id: CustomerId,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  locale: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  company_id: Schema.NullOr(CompanyId),
  avatar_url: Schema.NullOr(Schema.String),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
}) {}

/** The writable fields and their limits (spec "Limits"); each nullable, each optional. */
const fields = {
  first_name: Schema.optionalKey(Schema.NullOr(BoundedString(100))),
  last_name: Schema.optionalKey(Schema.NullOr(BoundedString(100))),
  email: Schema.optionalKey(Schema.NullOr(Email)),
  phone: Schema.optionalKey(Schema.NullOr(BoundedString(50))),
  locale: Schema.optionalKey(Schema.NullOr(BoundedString(10))),
  country: Schema.optionalKey(Schema.NullOr(BoundedString(255))),
  company_id: Schema.optionalKey(Schema.NullOr(CompanyId))
}

/** `POST /customers`: at least one of email, first_name, phone (checked by the service). */
export class CreateCustomer extends Model.Class<CreateCustomer>("CreateCustomer")(fields) {}

/** `PUT /customers/{id}`: present fields change, absent ones stay. */
export class UpdateCustomer extends Model.Class<UpdateCustomer>("UpdateCustomer")(fields) {}

/** `GET /customers`: `email` is an exact match (case-insensitive), `company_id` a company. */
export class ListCustomers extends Model.Class<ListCustomers>("ListCustomers")({
  ...PageRequest.fields,
  email: Schema.optionalKey(BoundedString(255)),
  company_id: Schema.optionalKey(CompanyId),
  /** Search names, email and phone: every word as a prefix, case-insensitive, best match first. */
  q: Schema.optionalKey(SearchText)
}) {}

/**
 * The answer of an erasure: what was removed with the customer, and how many events kept only their envelope.
 */
export class CustomerErasure extends Model.Class<CustomerErasure>("CustomerErasure")({
  customer_id: CustomerId,
  conversations: Schema.Int,
  messages: Schema.Int,
  events_redacted: Schema.Int
}) {}

/** Emails are unique per workspace regardless of case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()
