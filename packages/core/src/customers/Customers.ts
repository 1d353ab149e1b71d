/**
 * Customers. Ability and workspace checks as everywhere; every change records its
 * `customer.*` event in the same transaction.
 */
import { Context, Effect, Layer, Option } from "effect"
import { CompanyRepo } from "../companies/CompanyRepo.js"
import { encodeData, Events } from "../events/Events.js"
import { NotFound, orNotFound, type PersistenceError, ValidationError } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { type CompanyId, CustomerId, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import type { ForeignKeyViolation, UniqueViolation } from "../shared/Repository.js"
import { searchTerms } from "../shared/TextSearch.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import {
  type CreateCustomer,
  Customer,
  CustomerErasure,
  type ListCustomers,
  normalizeEmail,
  type UpdateCustomer
} from "./Customer.js"
import { CustomerRepo } from "./CustomerRepo.js"

/** Every operation here acts on customers: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("customers")

const editable = ["first_name", "last_name", "email", "phone", "locale", "country", "company_id"] as const

const emailTaken = ValidationError.field("email", "has already been taken")
const companyGone = ValidationError.field("company_id", "must be a company of the workspace")

/**
 * The indexes' answers when a concurrent write got past the service's checks: the same 422s the checks give. (A
 * duplicate email is refused by a unique index, a company deleted meanwhile by the foreign key.)
 */
const backstops = (self: Effect.Effect<void, PersistenceError | UniqueViolation | ForeignKeyViolation>) =>
  Effect.catchTags(self, {
    UniqueViolation: () => Effect.fail(emailTaken),
    ForeignKeyViolation: () => Effect.fail(companyGone)
  })

export class Customers extends Context.Service<Customers>()("@support-engine/core/Customers", {
  make: Effect.gen(function*() {
    const repo = yield* CustomerRepo
    const companies = yield* CompanyRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const events = yield* Events
    const locks = yield* RowLocks
    const guard = writeGuard(locks, "customers", Customer, "Customer")

    const find = (workspaceId: WorkspaceId, id: CustomerId) =>
      repo.findById(workspaceId, id).pipe(orNotFound("Customer"))

    const checkCompany = (workspaceId: WorkspaceId, companyId: CompanyId | null | undefined) =>
      companyId === null || companyId === undefined
        ? Effect.void
        : Effect.flatMap(companies.findById(workspaceId, companyId), (found) =>
          Option.isNone(found)
            ? Effect.fail(ValidationError.field("company_id", "must be a company of the workspace"))
            : Effect.void)

    const checkEmail = (workspaceId: WorkspaceId, email: string | null | undefined, self?: CustomerId) =>
      email === null || email === undefined
        ? Effect.void
        : Effect.flatMap(
          repo.findByEmail(workspaceId, email),
          (found) =>
            Option.isSome(found) && found.value.id !== self
              ? Effect.fail(emailTaken)
              : Effect.void
        )

    const create = Tracing.fn("Customers.create")(function*(input: CreateCustomer) {
      const principal = yield* canWrite
      if (!input.email && !input.first_name && !input.phone) {
        const message = "is required when first_name and phone are empty"
        return yield* new ValidationError({ errors: { email: [message], first_name: [message], phone: [message] } })
      }
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* checkCompany(principal.workspaceId, input.company_id)
        yield* checkEmail(principal.workspaceId, input.email)
        const at = yield* now
        const customer = new Customer({
          id: CustomerId.make(yield* ids.uuid),
          first_name: input.first_name ?? null,
          last_name: input.last_name ?? null,
          email: input.email ?? null,
          phone: input.phone ?? null,
          locale: input.locale ?? null,
          country: input.country ?? null,
          company_id: input.company_id ?? null,
          avatar_url: null,
          first_seen_at: at,
          last_seen_at: at,
          created_at: at,
          updated_at: at
        })
        yield* repo.insert(principal.workspaceId, customer).pipe(backstops)
        yield* events.record("customer.created", encodeData(Customer, customer))
        return customer
      }))
    })

    const get = Tracing.fn("Customers.get")(function*(id: CustomerId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const update = Tracing.fn("Customers.update")(
      function*(id: CustomerId, input: UpdateCustomer, options?: WriteOptions) {
        const principal = yield* canWrite
        return yield* tx.withTransaction(Effect.gen(function*() {
          // Held first, so an erasure committed meanwhile leaves a 404 rather than an event with their data.
          yield* locks.lock("customers", principal.workspaceId, id)
          const current = yield* guard.read(options, principal.workspaceId, id, find(principal.workspaceId, id))
          const merged = {
            first_name: input.first_name === undefined ? current.first_name : input.first_name,
            last_name: input.last_name === undefined ? current.last_name : input.last_name,
            email: input.email === undefined ? current.email : input.email,
            phone: input.phone === undefined ? current.phone : input.phone,
            locale: input.locale === undefined ? current.locale : input.locale,
            country: input.country === undefined ? current.country : input.country,
            company_id: input.company_id === undefined ? current.company_id : input.company_id
          }
          const changed = editable.filter((key) => merged[key] !== current[key])
          if (changed.length === 0) return current
          const next = new Customer({ ...current, ...merged, updated_at: yield* now })
          if (!next.email && !next.first_name && !next.phone) {
            return yield* ValidationError.field("email", "is required when first_name and phone are empty")
          }
          if (changed.includes("company_id")) yield* checkCompany(principal.workspaceId, next.company_id)
          if (changed.includes("email")) yield* checkEmail(principal.workspaceId, next.email, id)
          yield* repo.update(principal.workspaceId, next).pipe(backstops)
          yield* events.record("customer.updated", encodeData(Customer, next))
          return next
        }))
      }
    )

    /** Deletes the customer; its conversations and messages are kept. */
    const remove = Tracing.fn("Customers.delete")(function*(id: CustomerId, options?: WriteOptions) {
      const principal = yield* canWrite
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id))
        if (!(yield* repo.delete(principal.workspaceId, id))) return yield* new NotFound({ resource: "Customer" })
        yield* events.record("customer.deleted", { id })
      }))
    })

    /**
     * Erases the customer and everything of theirs, in one transaction with its `customer.erased` event. The
     * event is recorded after the redaction, so it keeps its own data.
     */
    const erase = Tracing.fn("Customers.erase")(function*(id: CustomerId) {
      const principal = yield* canWrite
      return yield* tx.withTransaction(Effect.gen(function*() {
        const erased = yield* repo.erase(principal.workspaceId, id, yield* now)
        if (Option.isNone(erased)) return yield* new NotFound({ resource: "Customer" })
        yield* events.record("customer.erased", { id })
        return new CustomerErasure({ customer_id: id, ...erased.value })
      }))
    })

    const list = Tracing.fn("Customers.list")(function*(query: ListCustomers) {
      const principal = yield* canRead
      const plan = yield* planList(query, { ranked: query.q !== undefined })
      const filter = {
        email: query.email === undefined ? undefined : normalizeEmail(query.email),
        company_id: query.company_id,
        terms: query.q === undefined ? undefined : yield* searchTerms(query.q)
      }
      const { items, total } = yield* repo.list(principal.workspaceId, filter, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    return { create, get, update, delete: remove, erase, list } as const
  })
}) {
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(Layer.provide(Events.layer))
}
