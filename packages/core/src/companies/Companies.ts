/**
 * Companies. Every operation checks the principal's ability and reads and writes only the
 * principal's workspace. Companies emit no events: no event type covers them.
 */
import { Context, Effect, Layer } from "effect"
import { NotFound, orNotFound } from "../shared/Errors.js"
import { IdGenerator } from "../shared/IdGenerator.js"
import { CompanyId, type WorkspaceId } from "../shared/Ids.js"
import { planList, timestampsKey } from "../shared/Pagination.js"
import { RowLocks, writeGuard, type WriteOptions } from "../shared/Preconditions.js"
import { accessTo } from "../shared/Principal.js"
import { now } from "../shared/Timestamp.js"
import * as Tracing from "../shared/Tracing.js"
import { Transactor } from "../shared/Transactor.js"
import { Company, type CreateCompany, type ListCompanies, type UpdateCompany } from "./Company.js"
import { CompanyRepo } from "./CompanyRepo.js"

/** Every operation here acts on companies: their abilities, or the broad ones, allow it. */
const { canRead, canWrite } = accessTo("companies")

export class Companies extends Context.Service<Companies>()("@support-engine/core/Companies", {
  make: Effect.gen(function*() {
    const repo = yield* CompanyRepo
    const tx = yield* Transactor
    const ids = yield* IdGenerator
    const guard = writeGuard(yield* RowLocks, "companies", Company, "Company")

    const find = (workspaceId: WorkspaceId, id: CompanyId) => repo.findById(workspaceId, id).pipe(orNotFound("Company"))

    const create = Tracing.fn("Companies.create")(function*(input: CreateCompany) {
      const principal = yield* canWrite
      const at = yield* now
      const company = new Company({
        id: CompanyId.make(yield* ids.uuid),
        name: input.name,
        domain: input.domain ?? null,
        country: input.country ?? null,
        avatar_url: input.avatar_url ?? null,
        first_seen_at: at,
        last_seen_at: at,
        created_at: at,
        updated_at: at
      })
      yield* tx.withTransaction(repo.insert(principal.workspaceId, company))
      return company
    })

    const get = Tracing.fn("Companies.get")(function*(id: CompanyId) {
      const principal = yield* canRead
      return yield* find(principal.workspaceId, id)
    })

    const update = Tracing.fn("Companies.update")(
      function*(id: CompanyId, input: UpdateCompany, options?: WriteOptions) {
        const principal = yield* canWrite
        return yield* tx.withTransaction(Effect.gen(function*() {
          const current = yield* guard.read(options, principal.workspaceId, id, find(principal.workspaceId, id))
          const next = {
            name: input.name ?? current.name,
            domain: input.domain === undefined ? current.domain : input.domain,
            country: input.country === undefined ? current.country : input.country,
            avatar_url: input.avatar_url === undefined ? current.avatar_url : input.avatar_url
          }
          const changed = (Object.keys(next) as Array<keyof typeof next>).some((key) => next[key] !== current[key])
          if (!changed) return current
          const updated = new Company({ ...current, ...next, updated_at: yield* now })
          yield* repo.update(principal.workspaceId, updated)
          return updated
        }))
      }
    )

    const remove = Tracing.fn("Companies.delete")(function*(id: CompanyId, options?: WriteOptions) {
      const principal = yield* canWrite
      const deleted = yield* tx.withTransaction(Effect.andThen(
        guard.beforeDelete(options, principal.workspaceId, id, repo.findById(principal.workspaceId, id)),
        repo.delete(principal.workspaceId, id)
      ))
      if (!deleted) return yield* new NotFound({ resource: "Company" })
    })

    const list = Tracing.fn("Companies.list")(function*(query: ListCompanies) {
      const principal = yield* canRead
      const plan = yield* planList(query)
      const { items, total } = yield* repo.list(principal.workspaceId, plan.slice)
      return plan.page(items, total, timestampsKey)
    })

    return { create, get, update, delete: remove, list } as const
  })
}) {
  /** Needs `CompanyRepo`, `Transactor`, `IdGenerator` and `RowLocks`. */
  static readonly layer = Layer.effect(this, this.make)
}
