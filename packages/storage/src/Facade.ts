/**
 * The Promise face of the engine (D3b) for plain TypeScript hosts: same services, same checks, same errors.
 * Inputs are untyped JSON-like values decoded with the same request schemas HTTP uses (so a bad input is the
 * same `ValidationError`), outputs are the JSON the HTTP API returns, and a failure rejects with the tagged
 * error itself (`error._tag`, `error.status`, `error.code`, `error.message`).
 */
import { Cause, type Context, Effect, Exit, Layer, ManagedRuntime, Option, Redacted, Schema } from "effect"
import { Agent, CreateAgent, ListAgents, UpdateAgent } from "../../core/src/agents/Agent.js"
import { Agents } from "../../core/src/agents/Agents.js"
import { Companies } from "../../core/src/companies/Companies.js"
import { Company, CreateCompany, ListCompanies, UpdateCompany } from "../../core/src/companies/Company.js"
import {
  Conversation,
  CreateConversation,
  ListConversations,
  UpdateConversation
} from "../../core/src/conversations/Conversation.js"
import { Conversations } from "../../core/src/conversations/Conversations.js"
import { CreateMessage, ListMessages, Message } from "../../core/src/conversations/Message.js"
import { Messages } from "../../core/src/conversations/Messages.js"
import { CreateCustomer, Customer, ListCustomers, UpdateCustomer } from "../../core/src/customers/Customer.js"
import { Customers } from "../../core/src/customers/Customers.js"
import type { EngineService } from "../../core/src/Engine.js"
import { Event } from "../../core/src/events/Event.js"
import { Events, ListEvents } from "../../core/src/events/Events.js"
import { Idempotency, requestFingerprint } from "../../core/src/idempotency/Idempotency.js"
import {
  Article,
  CreateArticle,
  ListArticles,
  ListRevisions,
  PutTranslation,
  Revision,
  UpdateArticle
} from "../../core/src/knowledge-base/Article.js"
import { KnowledgeBase } from "../../core/src/knowledge-base/KnowledgeBase.js"
import type { EngineError } from "../../core/src/shared/Errors.js"
import {
  AgentId,
  ApiTokenId,
  ArticleId,
  CompanyId,
  ConversationId,
  CustomerId,
  MessageId,
  RevisionId,
  TrainingDataId,
  WorkspaceId
} from "../../core/src/shared/Ids.js"
import { type Page, PageMeta } from "../../core/src/shared/Pagination.js"
import { entityTagOfJson, type WriteOptions } from "../../core/src/shared/Preconditions.js"
import { type Ability, Actor, Principal, type PrincipalShape } from "../../core/src/shared/Principal.js"
import { decodeRequest } from "../../core/src/shared/Validation.js"
import { Training } from "../../core/src/training/Training.js"
import {
  CreateTrainingData,
  ListTrainingData,
  ProcessUrls,
  ResyncStarted,
  TrainingDataItem,
  UpdateTrainingData,
  UrlExistsQuery
} from "../../core/src/training/TrainingData.js"
import { ApiToken, CreateApiToken } from "../../core/src/workspaces/ApiToken.js"
import { CreateUser, CreateWorkspace, User, Workspace } from "../../core/src/workspaces/Workspace.js"
import { Tokens, Users, Workspaces } from "../../core/src/workspaces/Workspaces.js"

/**
 * Runs engine effects as Promises; a failure rejects with the error value itself, not a wrapper. Tracing is off
 * (Tracing.ts): a Promise host has no tracer to give its spans to.
 */
export const makeRunner = <R, E>(layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(Layer.provideMerge(layer, Layer.setTracerEnabled(false)))
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

/** Options of an in-process write: an idempotency key, as `Idempotency-Key` is over HTTP (D52). */
export interface KeyOptions {
  readonly idempotencyKey?: string | undefined
}

/**
 * Runs `work` under the idempotency key, if one is given: the first call's JSON result is recorded with its
 * writes, and a retry with the same key and input answers it again (core's Idempotency.ts).
 */
const keyed = <A, E, R>(
  options: KeyOptions | undefined,
  method: string,
  path: string,
  input: unknown,
  status: number,
  work: Effect.Effect<A, E, R>
) => {
  const key = options?.idempotencyKey
  if (key === undefined) return work
  return Effect.gen(function*() {
    const principal = yield* Principal
    const idempotency = yield* Idempotency
    const result = yield* idempotency.run(
      principal.workspaceId,
      key,
      requestFingerprint(method, path, input),
      work,
      (value) =>
        Option.some({
          status,
          body: value === undefined ? "" : JSON.stringify(value),
          headers: value === undefined ? {} : { "content-type": "application/json" }
        })
    )
    if (result._tag === "Fresh") return result.value
    // The same result as the first call returned: JSON, or nothing for a delete.
    const replayed: unknown = result.outcome.body === "" ? undefined : JSON.parse(result.outcome.body)
    return replayed as A
  })
}

/** The shape every CRUD service shares (create, get, update, delete, list). */
interface CrudService<Id, M, C, U, L> {
  readonly create: (input: C) => Effect.Effect<M, EngineError, Principal>
  readonly get: (id: Id) => Effect.Effect<M, EngineError, Principal>
  readonly update: (id: Id, input: U, options?: WriteOptions) => Effect.Effect<M, EngineError, Principal>
  readonly delete: (id: Id, options?: WriteOptions) => Effect.Effect<void, EngineError, Principal>
  readonly list: (query: L) => Effect.Effect<Page<M>, EngineError, Principal>
}

/** JSON in, JSON out over a CRUD service, decoding and encoding with the schemas HTTP uses. */
const crud = <S extends CrudService<Id, M, C, U, L>, Id, M, MI, C, CI, U, UI, L, LI>(
  service: Context.Tag<S, S>,
  schemas: {
    readonly id: Schema.Schema<Id, string>
    readonly model: Schema.Schema<M, MI>
    readonly create: Schema.Schema<C, CI>
    readonly update: Schema.Schema<U, UI>
    readonly list: Schema.Schema<L, LI>
    /** The HTTP path of the collection, so a key's fingerprint is the same in process and over HTTP (D52). */
    readonly path: string
  }
) => {
  const id = decodeId(schemas.id)
  const model = encode(schemas.model)
  const decodeCreate = decodeRequest(schemas.create)
  const decodeUpdate = decodeRequest(schemas.update)
  const decodeList = decodeRequest(schemas.list)
  const encodePage = encode(page(schemas.model))
  return {
    /** With `{ idempotencyKey }`, a retry answers the first call's result instead of creating again (D52). */
    create: (input: unknown, options?: KeyOptions) =>
      keyed(
        options,
        "POST",
        schemas.path,
        input,
        201,
        Effect.flatMap(service, (s) => Effect.flatMap(decodeCreate(input), s.create)).pipe(Effect.flatMap(model))
      ),
    get: (key: unknown) => Effect.flatMap(service, (s) => Effect.flatMap(id(key), s.get)).pipe(Effect.flatMap(model)),
    /** With `{ ifMatch }` (an entity tag from `entityTagOf`), fails with `PreconditionFailed` if it changed (D52). */
    update: (key: unknown, input: unknown, options?: WriteOptions & KeyOptions) =>
      keyed(
        options,
        "PUT",
        `${schemas.path}/${String(key)}`,
        input,
        200,
        Effect.flatMap(
          service,
          (s) => Effect.flatMap(Effect.all([id(key), decodeUpdate(input)]), ([k, i]) => s.update(k, i, options))
        ).pipe(Effect.flatMap(model))
      ),
    delete: (key: unknown, options?: WriteOptions & KeyOptions) =>
      keyed(
        options,
        "DELETE",
        `${schemas.path}/${String(key)}`,
        undefined,
        204,
        Effect.flatMap(service, (s) => Effect.flatMap(id(key), (k) => s.delete(k, options)))
      ),
    list: (query: unknown = {}) =>
      Effect.flatMap(service, (s) => Effect.flatMap(decodeList(query), s.list)).pipe(Effect.flatMap(encodePage))
  }
}

/** The workspace-scoped API. Every call runs as `principal`, through the same services and checks as HTTP. */
const workspaceApi = (principal: PrincipalShape) => {
  const conversationId = decodeId(ConversationId)
  const messages = {
    /** `POST /conversations/{id}/messages` (D29); `{ idempotencyKey }` makes a retry safe (D52). */
    create: (conversation: unknown, input: unknown, options?: KeyOptions) =>
      keyed(
        options,
        "POST",
        `/v1/conversations/${String(conversation)}/messages`,
        input,
        201,
        Effect.flatMap(Messages, (s) =>
          Effect.flatMap(
            Effect.all([conversationId(conversation), decodeRequest(CreateMessage)(input)]),
            ([id, body]) => s.create(id, body)
          )).pipe(Effect.flatMap(encode(Message)))
      ),
    delete: (key: unknown) => Effect.flatMap(Messages, (s) => Effect.flatMap(decodeId(MessageId)(key), s.delete)),
    list: (query: unknown = {}) =>
      Effect.flatMap(Messages, (s) => Effect.flatMap(decodeRequest(ListMessages)(query), s.list)).pipe(
        Effect.flatMap(encode(page(Message)))
      )
  }
  const api = {
    agents: crud(Agents, {
      id: AgentId,
      model: Agent,
      create: CreateAgent,
      update: UpdateAgent,
      list: ListAgents,
      path: "/v1/agents"
    }),
    companies: crud(Companies, {
      id: CompanyId,
      model: Company,
      create: CreateCompany,
      update: UpdateCompany,
      list: ListCompanies,
      path: "/v1/companies"
    }),
    customers: crud(Customers, {
      id: CustomerId,
      model: Customer,
      create: CreateCustomer,
      update: UpdateCustomer,
      list: ListCustomers,
      path: "/v1/customers"
    }),
    conversations: crud(Conversations, {
      id: ConversationId,
      model: Conversation,
      create: CreateConversation,
      update: UpdateConversation,
      list: ListConversations,
      path: "/v1/conversations"
    }),
    messages,
    training: {
      ...crud(Training, {
        id: TrainingDataId,
        model: TrainingDataItem,
        create: CreateTrainingData,
        update: UpdateTrainingData,
        list: ListTrainingData,
        path: "/v1/training-data"
      }),
      /** `POST /training-data/url/process` (D30). */
      processUrls: (input: unknown) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeRequest(ProcessUrls)(input), s.processUrls)).pipe(
          Effect.flatMap(encode(Schema.Array(TrainingDataItem)))
        ),
      /** `POST /training-data/{id}/resync-now` (D31). */
      resync: (key: unknown) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeId(TrainingDataId)(key), s.resync)).pipe(
          Effect.flatMap(encode(ResyncStarted))
        ),
      /** `GET /training-data/url/exists` (D20). */
      urlExists: (query: unknown) =>
        Effect.flatMap(Training, (s) => Effect.flatMap(decodeRequest(UrlExistsQuery)(query), s.urlExists))
    },
    knowledgeBase: {
      ...crud(KnowledgeBase, {
        id: ArticleId,
        model: Article,
        create: CreateArticle,
        update: UpdateArticle,
        list: ListArticles,
        path: "/v1/kb-articles"
      }),
      putTranslation: (key: unknown, locale: string, input: unknown) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeRequest(PutTranslation)(input)]),
            ([id, body]) => s.putTranslation(id, locale, body)
          )).pipe(Effect.flatMap(encode(Article))),
      revisions: (key: unknown, query: unknown = {}) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeRequest(ListRevisions)(query)]),
            ([id, q]) => s.listRevisions(id, q)
          )).pipe(Effect.flatMap(encode(page(Revision)))),
      /** `POST /kb-articles/{id}/revisions/{revisionId}/restore` (spec, D32). */
      restore: (key: unknown, revision: unknown) =>
        Effect.flatMap(KnowledgeBase, (s) =>
          Effect.flatMap(
            Effect.all([decodeId(ArticleId)(key), decodeId(RevisionId)(revision)]),
            ([id, r]) => s.restore(id, r)
          )).pipe(Effect.flatMap(encode(Article)))
    },
    events: {
      list: (query: unknown = {}) =>
        Effect.flatMap(Events, (s) => Effect.flatMap(decodeRequest(ListEvents)(query), s.list)).pipe(
          Effect.flatMap(encode(page(Event)))
        )
    }
  }
  return { principal, ...asPrincipal(api, principal) }
}

/** Provides the principal to every effect-returning method of a nested API object. */
const asPrincipal = <T extends object>(api: T, principal: PrincipalShape): T => {
  const wrap = (value: unknown): unknown => {
    if (typeof value === "function") {
      return (...args: Array<unknown>) =>
        Effect.provideService(
          (value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown, Principal>)(...args),
          Principal,
          principal
        )
    }
    if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wrap(v)]))
    return value
  }
  return wrap(api) as T
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

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
    /**
     * The entity tag of a resource as this API returned it (the same value HTTP sends as `ETag`), to pass as
     * `{ ifMatch }` to `update` or `delete` (D52).
     */
    entityTagOf: (resource: object): string => entityTagOfJson(resource),
    /** Runs any Effect against the engine's services: the escape hatch to the Effect API. */
    run,
    /** Releases the database and stops background fibers. */
    dispose
  } as const
}

export type SupportEngine = ReturnType<typeof makeSupportEngine>
