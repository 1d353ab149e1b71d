/**
 * The machinery of the Promise API: a runner that turns engine effects into Promises, JSON-in/JSON-out CRUD
 * over a service with the schemas HTTP uses (inputs typed as the schemas' encoded form, decoded as HTTP decodes them,
 * so a bad value is the same `ValidationError`), idempotency keys, and the wrappers that give a nested API object a
 * principal and Promises.
 */
import {
  decodeRequest,
  type EngineError,
  type EngineService,
  Idempotency,
  type Page,
  PageMeta,
  Principal,
  type PrincipalShape,
  requestFingerprint,
  type Webhooks,
  type WriteOptions
} from "@support-engine/core"
import { Cause, type Context, Effect, Exit, Layer, ManagedRuntime, Option, References, Schema } from "effect"

/** What the Promise API runs on: every core service, webhook subscriptions included. */
export type FacadeServices = EngineService | Webhooks

/**
 * Runs engine effects as Promises; a failure rejects with the error value itself, not a wrapper. Tracing is off
 * (Tracing.ts): a Promise host has no tracer to give its spans to.
 */
export const makeRunner = <R, E>(layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(Layer.provideMerge(layer, Layer.succeed(References.TracerEnabled, false)))
  const run = <A, E2>(effect: Effect.Effect<A, E2, R>): Promise<A> =>
    runtime.runPromiseExit(effect).then((exit) =>
      Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))
    )
  return { run, runtime, dispose: () => runtime.dispose() } as const
}

export const encode = <A, I>(schema: Schema.Codec<A, I>) => Schema.encodeEffect(schema)
export const page = <A, I>(item: Schema.Codec<A, I>) => Schema.Struct({ data: Schema.Array(item), meta: PageMeta })

/** Decodes a path-style id, failing as HTTP does with `errors.id`. */
export const decodeId = <A>(schema: Schema.Codec<A, string>) => {
  const decode = decodeRequest(Schema.Struct({ id: schema }))
  return (id: string) => Effect.map(decode({ id }), (r) => r.id)
}

/** Options of an in-process write: an idempotency key, as `Idempotency-Key` is over HTTP. */
export interface KeyOptions {
  readonly idempotencyKey?: string | undefined
}

/**
 * Runs `work` under the idempotency key, if one is given: the first call's JSON result is recorded with its
 * writes, and a retry with the same key and input answers it again (core's Idempotency.ts).
 */
export const keyed = <A, E, R>(
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
export const crud = <I, S extends CrudService<Id, M, C, U, L>, Id, M, MI, C, CI, U, UI, L, LI>(
  service: Context.Key<I, S>,
  schemas: {
    readonly id: Schema.Codec<Id, string>
    readonly model: Schema.Codec<M, MI>
    readonly create: Schema.Codec<C, CI>
    readonly update: Schema.Codec<U, UI>
    readonly list: Schema.Codec<L, LI>
    /** The HTTP path of the collection, so a key's fingerprint is the same in process and over HTTP. */
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
    /** With `{ idempotencyKey }`, a retry answers the first call's result instead of creating again. */
    create: (input: CI, options?: KeyOptions) =>
      keyed(
        options,
        "POST",
        schemas.path,
        input,
        201,
        Effect.flatMap(service, (s) => Effect.flatMap(decodeCreate(input), s.create)).pipe(Effect.flatMap(model))
      ),
    get: (key: string) => Effect.flatMap(service, (s) => Effect.flatMap(id(key), s.get)).pipe(Effect.flatMap(model)),
    /** With `{ ifMatch }` (an entity tag from `entityTagOf`), fails with `PreconditionFailed` if it changed. */
    update: (key: string, input: UI, options?: WriteOptions & KeyOptions) =>
      keyed(
        options,
        "PUT",
        `${schemas.path}/${key}`,
        input,
        200,
        Effect.flatMap(
          service,
          (s) => Effect.flatMap(Effect.all([id(key), decodeUpdate(input)]), ([k, i]) => s.update(k, i, options))
        ).pipe(Effect.flatMap(model))
      ),
    delete: (key: string, options?: WriteOptions & KeyOptions) =>
      keyed(
        options,
        "DELETE",
        `${schemas.path}/${key}`,
        undefined,
        204,
        Effect.flatMap(service, (s) => Effect.flatMap(id(key), (k) => s.delete(k, options)))
      ),
    list: (query?: LI) =>
      Effect.flatMap(service, (s) => Effect.flatMap(decodeList(query ?? {}), s.list)).pipe(Effect.flatMap(encodePage))
  }
}

/**
 * Provides the principal to every effect-returning method of a nested API object. Each method first runs the check
 * `checkOf` gives for the part it sits in (the top-level key), given the method's own name.
 */
export const asPrincipal = <T extends object>(
  api: T,
  principal: PrincipalShape,
  checkOf: (part: string) => (method: string) => Effect.Effect<void, unknown, Principal>
): T => {
  const wrap = (value: unknown, name: string, check: (method: string) => Effect.Effect<void, unknown, Principal>) => {
    if (typeof value === "function") {
      const before = check(name)
      return (...args: Array<unknown>) =>
        Effect.provideService(
          Effect.andThen(
            before,
            Effect.suspend(() =>
              (value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown, Principal>)(...args)
            )
          ),
          Principal,
          principal
        )
    }
    if (isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]): [string, unknown] => [k, wrap(v, k, check)]))
    }
    return value
  }
  return Object.fromEntries(Object.entries(api).map(([part, v]) => [part, wrap(v, part, checkOf(part))])) as T
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

export type Promised<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer Args) => Effect.Effect<infer A, infer _E, infer _R>
    ? (...args: Args) => Promise<A>
    : T[K] extends object ? Promised<T[K]>
    : T[K]
}

export const promised = <T extends object>(
  api: T,
  run: <A, E>(effect: Effect.Effect<A, E, FacadeServices>) => Promise<A>
) => {
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
