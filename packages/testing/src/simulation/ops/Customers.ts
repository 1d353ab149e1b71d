/**
 * Companies and customers: created, updated and deleted; refused when a customer has no name, email or
 * phone, repeats an email of its workspace or names another workspace's company; and every read, update or delete
 * of another workspace's record is the same 404 as a missing one and changes nothing.
 */
import {
  Companies,
  CreateCompany,
  CreateCustomer,
  Customers,
  UpdateCompany,
  UpdateCustomer
} from "@support-engine/core"
import { Effect } from "effect"
import { touch } from "../Model.js"
import { type AnyCall, type Op, otherSpace, refused, valid } from "./Op.js"

export const company: Op = {
  name: "company",
  weight: 8,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 6)
      if (choice <= 2 || space.companies.length === 0) {
        const created = yield* valid(
          sim,
          space,
          "company",
          Effect.flatMap(Companies, (c) => c.create(new CreateCompany({ name: `co${space.companies.length}` })))
        )
        space.companies.push(created.id)
        touch(sim.world, space, "companies")
        return `company ${space.index} ${created.id}`
      }
      const id = yield* rng.pick(space.companies)
      if (choice === 3) {
        yield* valid(
          sim,
          space,
          "company update",
          Effect.flatMap(Companies, (c) => c.update(id, new UpdateCompany({ country: "PT" })))
        )
        return `company update ${id}`
      }
      if (choice === 4) {
        yield* valid(sim, space, "company delete", Effect.flatMap(Companies, (c) => c.delete(id)))
        space.companies.splice(space.companies.indexOf(id), 1)
        touch(sim.world, space, "companies")
        return `company delete ${id}`
      }
      const other = otherSpace(sim, space, (s) => s.companies)
      if (other === undefined) return undefined
      const foreign = yield* rng.pick(other.companies)
      const probe = { owner: other, read: Effect.flatMap(Companies, (c) => c.get(foreign)) }
      const calls: ReadonlyArray<readonly [string, AnyCall]> = [
        ["get", Effect.flatMap(Companies, (c) => c.get(foreign))],
        ["update", Effect.flatMap(Companies, (c) => c.update(foreign, new UpdateCompany({ name: "taken" })))],
        ["delete", Effect.flatMap(Companies, (c) => c.delete(foreign))]
      ]
      const [verb, call] = yield* rng.pick(calls)
      return yield* refused(sim, space, `cross-workspace company ${verb}`, "NotFound", call, probe)
    })
}

export const customer: Op = {
  name: "customer",
  weight: 20,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 10)
      if (choice <= 3 || space.customers.length === 0) {
        const email = (yield* rng.chance(0.5)) ? `c${++sim.world.serial}@ws${space.index}.test` : null
        const companyId = space.companies.length > 0 && (yield* rng.chance(0.3))
          ? yield* rng.pick(space.companies)
          : null
        const created = yield* valid(
          sim,
          space,
          "customer",
          Effect.flatMap(Customers, (c) =>
            c.create(new CreateCustomer({ first_name: `c${choice}`, email, company_id: companyId })))
        )
        space.customers.push({ id: created.id, email })
        touch(sim.world, space, "customers")
        return `customer ${space.index} ${created.id}`
      }
      const target = yield* rng.pick(space.customers)
      const probe = {
        owner: space,
        read: Effect.flatMap(Customers, (c) =>
          c.get(target.id))
      }
      switch (choice) {
        case 4: {
          yield* valid(
            sim,
            space,
            "customer update",
            Effect.flatMap(Customers, (c) => c.update(target.id, new UpdateCustomer({ last_name: `l${choice}` })))
          )
          return `customer update ${target.id}`
        }
        case 5: {
          yield* valid(sim, space, "customer delete", Effect.flatMap(Customers, (c) => c.delete(target.id)))
          space.customers.splice(space.customers.indexOf(target), 1)
          touch(sim.world, space, "customers")
          return `customer delete ${target.id}`
        }
        case 6: {
          const taken = space.customers.find((c) => c.email !== null && c !== target)
          if (taken === undefined) {
            return yield* refused(
              sim,
              space,
              "customer without name, email or phone",
              "ValidationError",
              Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ last_name: "only" })))
            )
          }
          return yield* refused(
            sim,
            space,
            "customer update to a taken email",
            "ValidationError",
            Effect.flatMap(Customers, (c) => c.update(target.id, new UpdateCustomer({ email: taken.email }))),
            probe
          )
        }
        case 7: {
          const other = otherSpace(sim, space, (s) => s.companies)
          if (other === undefined) return undefined
          const foreign = yield* rng.pick(other.companies)
          return yield* refused(
            sim,
            space,
            "customer with another workspace's company",
            "ValidationError",
            Effect.flatMap(Customers, (c) => c.update(target.id, new UpdateCustomer({ company_id: foreign }))),
            probe
          )
        }
        default: {
          const other = otherSpace(sim, space, (s) => s.customers)
          if (other === undefined) return undefined
          const foreign = (yield* rng.pick(other.customers)).id
          const calls: ReadonlyArray<readonly [string, AnyCall]> = [
            ["get", Effect.flatMap(Customers, (c) => c.get(foreign))],
            ["update", Effect.flatMap(Customers, (c) => c.update(foreign, new UpdateCustomer({ first_name: "x" })))],
            ["delete", Effect.flatMap(Customers, (c) => c.delete(foreign))]
          ]
          const [verb, call] = yield* rng.pick(calls)
          return yield* refused(sim, space, `cross-workspace customer ${verb}`, "NotFound", call, {
            owner: other,
            read: Effect.flatMap(Customers, (c) => c.get(foreign))
          })
        }
      }
    })
}
