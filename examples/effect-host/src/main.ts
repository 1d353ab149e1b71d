/**
 * An Effect program hosting support-engine: one engine layer, the core services called directly under the
 * principal a token resolves to, typed errors handled by tag, and the HTTP API served on the same engine.
 *
 * `pnpm start`: provisions a workspace and tokens, works through customers, conversations, messages and the event
 * log, then serves the API on a free loopback port, reads it back once with the typed client, and exits.
 * `pnpm start -- --serve`: the same, then keeps serving on `SUPPORT_HOST`:`SUPPORT_PORT` (default 127.0.0.1:8080)
 * until Ctrl-C. `SUPPORT_DATABASE_URL` picks the database; the default is an in-memory SQLite database.
 */
import { NodeRuntime } from "@effect/platform-node"
import {
  type Ability,
  Conversations,
  CreateApiToken,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWorkspace,
  Customers,
  Events,
  ListEvents,
  Messages,
  Principal,
  Tokens,
  UpdateConversation,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { makeClient, ServerLive } from "@support-engine/http"
import { Config, ConfigProvider, Console, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"

/**
 * The engine, built once for the whole program: core services over migrated storage, webhook subscriptions, and the
 * webhook dispatcher and the training and reply workers running beside them. Everything below, the HTTP server
 * included, shares this one instance (with an in-memory database, a second instance would be a second, empty
 * database).
 */
const Engine = Layer.unwrap(
  Effect.map(
    Config.String("SUPPORT_DATABASE_URL").pipe(Config.withDefault("file::memory:")),
    (databaseUrl) => supportEngineLayer({ databaseUrl })
  )
)

/**
 * Provisioning: workspaces and tokens are engine operations for the host, not `/v1` endpoints, so they take
 * no principal. A token's plain value exists only here, once; the engine keeps its hash.
 */
const provision = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Effect host" }))
  const tokens = yield* Tokens
  const issue = (name: string, ability: Ability) =>
    Effect.map(
      tokens.create(new CreateApiToken({ workspace_id: workspace.id, name, abilities: [ability] })),
      (issued) => issued.plain
    )
  return {
    workspace,
    writeToken: yield* issue("effect-host writer", "external-api:write"),
    readToken: yield* issue("effect-host reader", "external-api:read")
  }
})

/**
 * Runs `self` as the holder of `token`, as an HTTP request with that bearer token would run: `Tokens.authenticate`
 * resolves it to a principal (workspace, abilities, actor) and every service reads that principal from the context
 * for its ability and workspace checks and for the actor of the events it records.
 */
const asToken = (token: Redacted.Redacted<string>) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const principal = yield* (yield* Tokens).authenticate(token)
    return yield* Effect.provideService(self, Principal, principal)
  })

/** The environment, except `SUPPORT_PORT`: 0, any free port. */
const freePortFromEnv = ConfigProvider.fromEnvRecord({ SUPPORT_PORT: "0" }).pipe(
  ConfigProvider.orElse(ConfigProvider.fromEnv())
)

/** The support work itself: the same service methods the HTTP handlers call. */
const support = Effect.gen(function*() {
  const customers = yield* Customers
  const conversations = yield* Conversations
  const customer = yield* customers.create(
    new CreateCustomer({ email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" })
  )
  const conversation = yield* conversations.create(
    new CreateConversation({ customer_id: customer.id, subject: "Cannot log in" })
  )
  yield* (yield* Messages).create(
    conversation.id,
    new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "I cannot log in since today." })
  )
  yield* conversations.update(conversation.id, new UpdateConversation({ priority: "high" }))

  // Expected failures are values in the error channel, each with its own tag: handle the one you expect and let
  // the others through. Emails are unique per workspace, case-insensitively: a 422 over HTTP.
  yield* customers.create(new CreateCustomer({ email: "ADA@example.com" })).pipe(
    Effect.catchTag(
      "ValidationError",
      (error) => Console.log(`duplicate email refused: ${error._tag} ${error.status} ${JSON.stringify(error.errors)}`)
    )
  )
  return customer
})

const program = Effect.gen(function*() {
  const { readToken, workspace, writeToken } = yield* provision
  yield* Console.log(`workspace ${workspace.id} "${workspace.name}"`)

  const customer = yield* support.pipe(asToken(writeToken))

  // A read-only token may not write: the service refuses before touching storage.
  yield* Effect.flatMap(Customers, (customers) => customers.create(new CreateCustomer({ first_name: "Grace" }))).pipe(
    asToken(readToken),
    Effect.catchTag(
      "InsufficientAbility",
      (error) => Console.log(`read token refused: ${error.status} ${error.message}`)
    )
  )

  const events = yield* Effect.flatMap(Events, (log) => log.list(new ListEvents({ per_page: 100 }))).pipe(
    asToken(readToken)
  )
  yield* Console.log(`recorded events (${events.meta.total}), oldest first:`)
  for (const event of [...events.data].reverse()) {
    yield* Console.log(`  ${event.event.padEnd(40)} actor=${event.actor.type}:${event.actor.id}`)
  }

  // The HTTP API on this same engine. `ServerLive` needs the engine's services, which `Effect.provide(Engine)` below
  // already put in this program's context: built here it serves the workspace created above. Without `--serve` it
  // listens on a free port just long enough for one call, so the demo can run beside anything on 8080.
  const serve = process.argv.includes("--serve")
  yield* Effect.scoped(Effect.gen(function*() {
    const server = yield* Layer.build(ServerLive)
    const baseUrl = yield* HttpServer.addressFormattedWith(Effect.succeed).pipe(Effect.provide(server))
    const client = yield* makeClient({ baseUrl, token: writeToken })
    const listed = yield* client.customers.list({ query: { email: "ada@example.com" } })
    yield* Console.log(
      `GET ${baseUrl}/v1/customers?email=ada@example.com -> ${listed.data.map((c) => c.id).join(", ")}`
    )
    if (listed.data[0]?.id !== customer.id) return yield* Effect.die(new Error("the API and the services disagree"))
    if (!serve) return
    yield* Console.log(
      [
        "",
        `Serving ${baseUrl}/v1 (docs ${baseUrl}/docs) on the same engine. Write token, shown this once:`,
        `  ${Redacted.value(writeToken)}`,
        "Ctrl-C stops: the server drains, then the dispatcher and the database close."
      ].join("\n")
    )
    return yield* Effect.never
  })).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, serve ? ConfigProvider.fromEnv() : freePortFromEnv)
  )
})

// runMain interrupts the program on SIGINT/SIGTERM: scopes close in reverse, so the HTTP server stops first, then
// the engine's background fibers, then the database. It reports a failure and exits non-zero.
program.pipe(Effect.provide(Engine), NodeRuntime.runMain)
