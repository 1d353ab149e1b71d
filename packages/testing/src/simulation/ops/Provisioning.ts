/**
 * Workspaces, users and API tokens. Tokens are created with read or write and with or without an
 * expiry, revoked, and used: a revoked or expired token is refused (401), a read token's write is refused (403), and
 * a valid one acts as its workspace.
 */
import {
  Actor,
  CreateApiToken,
  CreateCustomer,
  CreateUser,
  CreateWorkspace,
  Customers,
  ListCustomers,
  Tokens,
  Users,
  Workspaces
} from "@support-engine/core"
import { Clock, DateTime, Effect } from "effect"
import { broken } from "../Failure.js"
import { type Space, touch } from "../Model.js"
import { type Op, refused, valid } from "./Op.js"

const MAX_SPACES = 4
const MINUTE = 60_000

export const newWorkspace: Op = {
  name: "workspace",
  weight: 4,
  run: (sim) =>
    Effect.gen(function*() {
      const spaces = sim.world.spaces
      if (spaces.length >= MAX_SPACES) return undefined
      const { token, workspace } = yield* sim.engine.run(Effect.gen(function*() {
        const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: `ws${spaces.length}` }))
        const { token } = yield* (yield* Tokens).create(
          new CreateApiToken({ workspace_id: workspace.id, name: "sim", abilities: ["external-api:write"] })
        )
        return { workspace, token }
      })).pipe(Effect.catch((e) => broken("a valid operation succeeds: workspace", e._tag)))
      const space: Space = {
        index: spaces.length,
        id: workspace.id,
        organizationId: workspace.organization_id,
        principal: {
          workspaceId: workspace.id,
          organizationId: workspace.organization_id,
          abilities: ["external-api:write"],
          actor: Actor.apiToken(token.id)
        },
        tokens: [],
        users: [],
        companies: [],
        customers: [],
        agents: [],
        conversations: [],
        training: [],
        articles: [],
        hooks: [],
        folders: [],
        emailAgent: null,
        keys: [],
        messages: 0,
        events: 0,
        lastEvent: undefined
      }
      spaces.push(space)
      return `workspace ${space.index} ${workspace.id}`
    })
}

export const newUser: Op = {
  name: "user",
  weight: 4,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      if (space.users.length >= 4) return undefined
      const user = yield* valid(
        sim,
        space,
        "user",
        Effect.flatMap(Users, (u) =>
          u.create(
            new CreateUser({ workspace_id: space.id, name: `u${space.users.length}`, email: `u@ws${space.index}.test` })
          ))
      )
      space.users.push(user.id)
      return `user ${space.index} ${user.id}`
    })
}

export const newToken: Op = {
  name: "token",
  weight: 8,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const now = yield* Clock.currentTimeMillis
      const canWrite = yield* rng.chance(0.5)
      if (yield* rng.chance(0.15)) {
        // An expiry must be in the future.
        const past = new CreateApiToken({
          workspace_id: space.id,
          name: "past",
          abilities: ["external-api:read"],
          expires_at: DateTime.makeUnsafe(now)
        })
        return yield* refused(
          sim,
          space,
          "token expiring now",
          "ValidationError",
          Effect.flatMap(Tokens, (t) => t.create(past))
        )
      }
      const expiresAt = (yield* rng.chance(0.5)) ? now + (yield* rng.int(1, 30)) * MINUTE : null
      const issued = yield* valid(
        sim,
        space,
        "token",
        Effect.flatMap(Tokens, (t) =>
          t.create(
            new CreateApiToken({
              workspace_id: space.id,
              name: `t${space.tokens.length}`,
              abilities: [canWrite ? "external-api:write" : "external-api:read"],
              expires_at: expiresAt === null ? null : DateTime.makeUnsafe(expiresAt)
            })
          ))
      )
      space.tokens.push({ id: issued.token.id, plain: issued.plain, canWrite, expiresAt, revoked: false })
      return `token ${space.index} ${issued.token.id} ${canWrite ? "write" : "read"} ${expiresAt ?? "never"}`
    })
}

export const revokeToken: Op = {
  name: "revoke token",
  weight: 4,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const live = space.tokens.filter((t) => !t.revoked)
      if (live.length === 0) return undefined
      const token = yield* rng.pick(live)
      yield* valid(sim, space, "revoke token", Effect.flatMap(Tokens, (t) => t.revoke(token.id)))
      token.revoked = true
      return `revoke ${space.index} ${token.id}`
    })
}

/** A request with one of the workspace's tokens, whatever its state: the engine must judge it as the model does. */
export const useToken: Op = {
  name: "use token",
  weight: 12,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      if (space.tokens.length === 0) return undefined
      const token = yield* rng.pick(space.tokens)
      const now = yield* Clock.currentTimeMillis
      if (token.revoked || (token.expiresAt !== null && token.expiresAt <= now)) {
        const why = token.revoked ? "revoked" : "expired"
        return yield* refused(
          sim,
          space,
          `${why} token`,
          "Unauthenticated",
          Effect.flatMap(Tokens, (t) => t.authenticate(token.plain))
        )
      }
      const principal = yield* valid(
        sim,
        space,
        "authenticate",
        Effect.flatMap(Tokens, (t) => t.authenticate(token.plain))
      )
      if (principal.workspaceId !== space.id) return yield* broken("a token acts as its own workspace", token.id)
      const write = Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ first_name: "by token" })))
      if (!token.canWrite) {
        if (yield* rng.chance(0.5)) {
          const page = yield* valid(
            sim,
            principal,
            "read with a read token",
            Effect.flatMap(Customers, (c) => c.list(new ListCustomers({ per_page: 1 })))
          )
          return `read with ${token.id}: ${page.meta.total}`
        }
        return yield* refused(sim, principal, "write with a read token", "InsufficientAbility", write)
      }
      const customer = yield* valid(sim, principal, "write with a write token", write)
      space.customers.push({ id: customer.id, email: null })
      touch(sim.world, space, "customers")
      return `customer ${space.index} ${customer.id} by ${token.id}`
    })
}
