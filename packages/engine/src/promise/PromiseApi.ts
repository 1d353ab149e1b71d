/**
 * The Promise face of the engine for plain TypeScript hosts: same services, same checks, same errors.
 * Inputs are typed as the request schemas' encoded (JSON) form and decoded with the same schemas HTTP uses (so a
 * bad value is the same `ValidationError`), outputs are the JSON the HTTP API returns, and a failure rejects with
 * the tagged error itself (`error._tag`, `error.status`, `error.code`, `error.message`). The machinery is in
 * `Runner.ts`, the workspace-scoped services in `WorkspaceApi.ts`, the ability check in `Abilities.ts`.
 */
import {
  type Ability,
  Actor,
  ApiToken,
  ApiTokenId,
  CreateApiToken,
  CreateUser,
  CreateWorkspace,
  decodeRequest,
  entityTagOfJson,
  Tokens,
  User,
  Users,
  Workspace,
  WorkspaceId,
  Workspaces
} from "@support-engine/core"
import { Effect, type Layer, Redacted } from "effect"
import { supportEngineLayer, type SupportEngineOptions } from "../SupportEngine.js"
import { decodeId, encode, type FacadeServices, makeRunner, type Promised, promised } from "./Runner.js"
import { workspaceApi } from "./WorkspaceApi.js"

export { type FacadeServices, type KeyOptions, makeRunner } from "./Runner.js"

/** Options for a workspace session opened by the host itself rather than with a token. */
export interface WorkspaceSessionOptions {
  /** Default: write (which grants read). */
  readonly abilities?: ReadonlyArray<Ability>
  /** Who the host acts as on recorded events. Default: the system actor. */
  readonly actor?: { readonly type: "api_token" | "user" | "agent" | "system"; readonly id: string | null }
}

export type WorkspaceApi = Promised<ReturnType<typeof workspaceApi>>

/** Builds the Promise API over an engine layer (core services on storage); `createSupportEngine` is its usual use. */
export const makeSupportEngine = <E>(layer: Layer.Layer<FacadeServices, E>) => {
  const { dispose, run } = makeRunner(layer)
  const workspaceId = decodeId(WorkspaceId)
  const tokenId = decodeId(ApiTokenId)
  const encodeToken = encode(ApiToken)

  const provisioning = {
    workspaces: {
      create: (input: typeof CreateWorkspace.Encoded) =>
        Effect.gen(function*() {
          return yield* (yield* Workspaces).create(yield* decodeRequest(CreateWorkspace)(input))
        }).pipe(Effect.flatMap(encode(Workspace))),
      get: (id: string) =>
        Effect.gen(function*() {
          return yield* (yield* Workspaces).get(yield* workspaceId(id))
        }).pipe(Effect.flatMap(encode(Workspace)))
    },
    users: {
      create: (input: typeof CreateUser.Encoded) =>
        Effect.gen(function*() {
          return yield* (yield* Users).create(yield* decodeRequest(CreateUser)(input))
        }).pipe(Effect.flatMap(encode(User)))
    },
    tokens: {
      /** Issues a token; `plain` is the bearer value, returned this once. */
      create: (input: typeof CreateApiToken.Encoded) =>
        Effect.gen(function*() {
          const issued = yield* (yield* Tokens).create(yield* decodeRequest(CreateApiToken)(input))
          return { ...(yield* encodeToken(issued.token)), token: Redacted.value(issued.plain) }
        }),
      revoke: (id: string) =>
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
    /**
     * The entity tag of a resource as this API returned it (the same value HTTP sends as `ETag`), to pass as
     * `{ ifMatch }` to `update` or `delete`.
     */
    entityTagOf: (resource: object): string => entityTagOfJson(resource),
    /** Runs any Effect against the engine's services: the escape hatch to the Effect API. */
    run,
    /** Releases the database and stops background fibers. */
    dispose
  } as const
}

export type SupportEngine = ReturnType<typeof makeSupportEngine>

/**
 * The Promise API over `supportEngineLayer(options)`. Call `dispose()` when done: it stops the dispatcher (leases of
 * attempts in flight are given back), the training and reply workers (their leases given back too), then closes
 * the database.
 *
 * @example
 * const engine = createSupportEngine({ databaseUrl: "file:./data/support.db" })
 * const workspace = await engine.workspaces.create({ name: "Acme" })
 * const api = await engine.workspace(workspace.id)
 * await api.companies.create({ name: "Globex" })
 * await engine.dispose()
 */
export const createSupportEngine = (options: SupportEngineOptions = {}): SupportEngine =>
  makeSupportEngine(supportEngineLayer(options))
