/**
 * The Promise face of the engine (D3b) for plain TypeScript hosts: same services, same checks, same errors.
 * Inputs are untyped JSON-like values decoded with the same request schemas HTTP uses (so a bad input is the
 * same `ValidationError`), outputs are the JSON the HTTP API returns, and a failure rejects with the tagged
 * error itself (`error._tag`, `error.status`, `error.code`, `error.message`).
 */
import { Cause, Effect, Exit, type Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { ApiToken, CreateApiToken } from "./ApiToken.js"
import { Companies } from "./Companies.js"
import { Company, CreateCompany, ListCompanies, UpdateCompany } from "./Company.js"
import type { EngineService } from "./Engine.js"
import { Event } from "./Event.js"
import { Events, ListEvents } from "./Events.js"
import { ApiTokenId, CompanyId, WorkspaceId } from "./Ids.js"
import { PageMeta } from "./Pagination.js"
import { type Ability, Actor, Principal, type PrincipalShape } from "./Principal.js"
import { decodeRequest } from "./Validation.js"
import { CreateUser, CreateWorkspace, User, Workspace } from "./Workspace.js"
import { Tokens, Users, Workspaces } from "./Workspaces.js"

/** Runs engine effects as Promises; a failure rejects with the error value itself, not a wrapper. */
export const makeRunner = <R, E>(layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(layer)
  const run = <A, E2>(effect: Effect.Effect<A, E2, R>): Promise<A> =>
    runtime.runPromiseExit(effect).then((exit) =>
      Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))
    )
  return { run, runtime, dispose: () => runtime.dispose() } as const
}

const encode = <A, I>(schema: Schema.Schema<A, I>) => Schema.encode(schema)
const page = <A, I>(item: Schema.Schema<A, I>) => Schema.Struct({ data: Schema.Array(item), meta: PageMeta })

/** Decodes a path-style id, failing as HTTP does with `errors.id` (D13). */
const decodeId = <A>(schema: Schema.Schema<A, string>) => {
  const decode = decodeRequest(Schema.Struct({ id: schema }))
  return (id: unknown) => Effect.map(decode({ id }), (r) => r.id)
}

/** The workspace-scoped API, every call made as `principal`. */
const workspaceApi = (principal: PrincipalShape) => {
  const as = Effect.provideService(Principal, principal)
  const companyId = decodeId(CompanyId)
  return {
    principal,
    companies: {
      create: (input: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Companies).create(yield* decodeRequest(CreateCompany)(input))
        }).pipe(Effect.flatMap(encode(Company)), as),
      get: (id: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Companies).get(yield* companyId(id))
        }).pipe(Effect.flatMap(encode(Company)), as),
      update: (id: unknown, input: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Companies).update(yield* companyId(id), yield* decodeRequest(UpdateCompany)(input))
        }).pipe(Effect.flatMap(encode(Company)), as),
      delete: (id: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Companies).delete(yield* companyId(id))
        }).pipe(as),
      list: (query: unknown = {}) =>
        Effect.gen(function*() {
          return yield* (yield* Companies).list(yield* decodeRequest(ListCompanies)(query))
        }).pipe(Effect.flatMap(encode(page(Company))), as)
    },
    events: {
      list: (query: unknown = {}) =>
        Effect.gen(function*() {
          return yield* (yield* Events).list(yield* decodeRequest(ListEvents)(query))
        }).pipe(Effect.flatMap(encode(page(Event))), as)
    }
  } as const
}

type Promised<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer Args) => Effect.Effect<infer A, infer _E, infer _R>
    ? (...args: Args) => Promise<A>
    : T[K] extends object ? Promised<T[K]>
    : T[K]
}

const promised = <T extends object>(api: T, run: <A, E>(effect: Effect.Effect<A, E, EngineService>) => Promise<A>) => {
  const wrap = (value: unknown): unknown => {
    if (typeof value === "function") {
      return (...args: Array<unknown>) => run((value as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args))
    }
    if (
      typeof value === "object" && value !== null && !Array.isArray(value) &&
      Object.getPrototypeOf(value) === Object.prototype
    ) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wrap(v)]))
    }
    return value
  }
  return wrap(api) as Promised<T>
}

/** Options for a workspace session opened by the host itself rather than with a token. */
export interface WorkspaceSessionOptions {
  /** Default: write (which grants read). */
  readonly abilities?: ReadonlyArray<Ability>
  /** Who the host acts as on recorded events (D44). Default: the system actor. */
  readonly actor?: { readonly type: "api_token" | "user" | "agent" | "system"; readonly id: string | null }
}

export type WorkspaceApi = Promised<ReturnType<typeof workspaceApi>>

/**
 * Builds the Promise facade over an engine layer (core services on a storage adapter). Storage packages wrap
 * this as `createSupportEngine({ databaseUrl })`.
 */
export const makeSupportEngine = <E>(layer: Layer.Layer<EngineService, E>) => {
  const { dispose, run } = makeRunner(layer)
  const workspaceId = decodeId(WorkspaceId)
  const tokenId = decodeId(ApiTokenId)
  const encodeToken = encode(ApiToken)

  const provisioning = {
    workspaces: {
      create: (input: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Workspaces).create(yield* decodeRequest(CreateWorkspace)(input))
        }).pipe(Effect.flatMap(encode(Workspace))),
      get: (id: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Workspaces).get(yield* workspaceId(id))
        }).pipe(Effect.flatMap(encode(Workspace)))
    },
    users: {
      create: (input: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Users).create(yield* decodeRequest(CreateUser)(input))
        }).pipe(Effect.flatMap(encode(User)))
    },
    tokens: {
      /** Issues a token; `plain` is the bearer value, returned this once (D9). */
      create: (input: unknown) =>
        Effect.gen(function*() {
          const issued = yield* (yield* Tokens).create(yield* decodeRequest(CreateApiToken)(input))
          return { ...(yield* encodeToken(issued.token)), token: Redacted.value(issued.plain) }
        }),
      revoke: (id: unknown) =>
        Effect.gen(function*() {
          return yield* (yield* Tokens).revoke(yield* tokenId(id))
        })
    }
  }

  return {
    ...promised(provisioning, run),
    /** Authenticates a bearer token once and returns the API scoped to its workspace and abilities. */
    withToken: (token: string): Promise<WorkspaceApi> =>
      run(Effect.flatMap(Tokens, (tokens) => tokens.authenticate(Redacted.make(token)))).then((principal) =>
        promised(workspaceApi(principal), run)
      ),
    /** The API of a workspace, for a host acting on its own authority (no token). */
    workspace: (id: string, options: WorkspaceSessionOptions = {}): Promise<WorkspaceApi> =>
      run(Effect.flatMap(workspaceId(id), (wid) => Effect.flatMap(Workspaces, (w) => w.get(wid)))).then((workspace) =>
        promised(
          workspaceApi({
            workspaceId: workspace.id,
            organizationId: workspace.organization_id,
            abilities: options.abilities ?? ["external-api:write"],
            actor: options.actor === undefined ? Actor.system : new Actor(options.actor)
          }),
          run
        )
      ),
    /** Runs any Effect against the engine's services: the escape hatch to the Effect API. */
    run,
    /** Releases the database and stops background fibers. */
    dispose
  } as const
}

export type SupportEngine = ReturnType<typeof makeSupportEngine>
