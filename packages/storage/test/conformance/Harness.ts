/**
 * What every conformance suite runs on: the core engine over one storage adapter. A suite is a function of
 * an `Adapter`, so SQLite and PostgreSQL run the very same tests.
 */
import {
  type Ability,
  Actor,
  CreateApiToken,
  CreateWorkspace,
  DeliveryQueue,
  EngineLive,
  type EngineService,
  Principal,
  type PrincipalShape,
  Tokens,
  type Workspace,
  Workspaces
} from "@support-engine/core"
import { type Config, Effect, Layer, Tracer } from "effect"
import type { SqlClient } from "effect/sql"
import type { StoragePorts } from "../../src/Storage.js"

export interface Adapter {
  readonly name: string
  /** A fresh storage layer over the adapter's test database (already migrated when built). */
  readonly storage: () => Layer.Layer<StoragePorts | SqlClient.SqlClient, Config.ConfigError>
  /**
   * Run with tracing off (core's Tracing.ts), as the standalone server and the Promise facade do: spans are
   * no-ops the tracer never sees. Effect's default (on) otherwise.
   */
  readonly untraced?: boolean
}

export type TestEngine = EngineService | StoragePorts | SqlClient.SqlClient

/** The engine on the adapter's storage; built per test, so a suite may be declared before its database exists. */
export const engineLayer = (adapter: Adapter): Layer.Layer<TestEngine> =>
  EngineLive.pipe(Layer.provideMerge(Layer.suspend(() => adapter.storage())), Layer.orDie)

/** Tracing as the adapter asks, for a test's effect. */
export const withTracing = (adapter: Adapter) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withTracerEnabled(self, !adapter.untraced)

/** Runs a test's effect on the engine over the adapter's storage, with tracing as the adapter asks. */
export const provideEngine = (adapter: Adapter) => <A, E>(self: Effect.Effect<A, E, TestEngine>) =>
  self.pipe(withTracing(adapter), Effect.provide(engineLayer(adapter)))

/**
 * A new workspace and a principal of it with the given abilities (write by default). The principal stands for
 * a token of the workspace; its abilities are set here directly so a test can also model a token with none.
 */
export const makeWorkspace = (
  abilities: ReadonlyArray<Ability> = ["external-api:write"],
  name = "Acme"
): Effect.Effect<{ readonly workspace: Workspace; readonly principal: PrincipalShape }, never, Workspaces | Tokens> =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
    const { token } = yield* (yield* Tokens).create(
      new CreateApiToken({ workspace_id: workspace.id, name: "test", abilities: ["external-api:read"] })
    )
    const principal: PrincipalShape = {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      abilities,
      actor: Actor.apiToken(token.id)
    }
    return { workspace, principal }
  }).pipe(Effect.orDie)

/** Runs `self` as `principal`. */
export const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

/** An expected failure's contract code, or its tag when the contract gives none. */
export const codeOf = <A, E extends { readonly _tag: string; readonly code?: unknown }, R>(
  self: Effect.Effect<A, E, R>
) => Effect.map(Effect.flip(self), (e) => e.code ?? e._tag)

/**
 * What the dispatcher does before each claim (issue 16 item 2): every event still waiting for its fan-out gets its
 * deliveries. Answers how many events were fanned out.
 */
export const fanOutPending = Effect.flatMap(DeliveryQueue, (queue) => {
  const loop = (total: number): Effect.Effect<number, unknown> =>
    Effect.flatMap(queue.fanOut(500), (n) => n === 0 ? Effect.succeed(total) : loop(total + n))
  return loop(0)
}).pipe(Effect.orDie)

/** `self`'s result and the SQL text of every statement it runs (their spans carry it: tracing is on while it runs). */
export const statementsOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const spans: Array<Tracer.Span> = []
    const tracer = yield* Effect.map(Effect.tracer, (inner) =>
      Tracer.make({
        span: (options) => {
          const span = inner.span(options)
          spans.push(span)
          return span
        },
        context: inner.context
      }))
    const result = yield* self.pipe(Effect.withTracer(tracer), Effect.withTracerEnabled(true))
    // A statement's span is named after its database (OpenTelemetry's convention), and carries its SQL text.
    const statements = spans.filter((s) => s.attributes.has("db.query.text")).map((s) =>
      String(s.attributes.get("db.query.text"))
    )
    return { result, statements } as const
  })
