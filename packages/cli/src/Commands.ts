/**
 * The `support-engine` command: provisioning (workspaces, users, tokens, webhooks), `migrate`, `serve`, `mcp`,
 * `secrets reencrypt`, and the operations `prune` and `backup`.
 * Input goes through core's request schemas, so the CLI accepts exactly what the engine does; validation
 * failures name the options the user typed.
 */
import {
  AgentId,
  Agents,
  ApiToken,
  ApiTokenId,
  CreateWebhook,
  decodeCreateApiToken,
  decodeCreateUser,
  decodeCreateWorkspace,
  decodeRequest,
  formatTimestamp,
  Principal,
  Retention,
  RetentionConfig,
  SecretCipher,
  Timestamp,
  Tokens,
  User,
  Users,
  Webhooks,
  WebhookWithSecret,
  Workspace,
  WorkspaceId,
  Workspaces
} from "@support-engine/core"
import { backupDatabase, clientLayer, migrate, reencryptSecrets, StorageLive } from "@support-engine/storage"
import { Console, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { databaseUrl, describeDatabase } from "./CliConfig.js"
import { ProvisioningEngine } from "./Engine.js"
import { mcp } from "./Mcp.js"
import { asOptions, encoded, exportLine, printJson } from "./Output.js"
import { serveWith } from "./Serve.js"

const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the result as one JSON object on stdout"),
  Flag.withDefault(false)
)
const workspaceOption = Flag.String("workspace").pipe(Flag.withDescription("The workspace id"))

const withEngine = Effect.provide(ProvisioningEngine)

const workspaceCreate = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The workspace's name (1-255 characters)")), json },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeCreateWorkspace({ name: args.name }).pipe(Effect.mapError(asOptions({})))
      const workspace = yield* (yield* Workspaces).create(input)
      if (args.json) return yield* printJson(yield* encoded(Workspace, workspace))
      yield* Console.log(`Created workspace "${workspace.name}": ${workspace.id}`)
    }).pipe(withEngine)
).pipe(Command.withDescription("Create a workspace"))

const EmailAgentInput = Schema.Struct({ workspace_id: WorkspaceId, agent_id: AgentId })

const workspaceSetEmailAgent = Command.make(
  "set-email-agent",
  {
    workspace: workspaceOption,
    agent: Flag.String("agent").pipe(Flag.withDescription("The id of an agent of that workspace")),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeRequest(EmailAgentInput)({ workspace_id: args.workspace, agent_id: args.agent })
        .pipe(Effect.mapError(asOptions({ workspace_id: "--workspace", agent_id: "--agent" })))
      const workspace = yield* (yield* Agents).setEmailAgent(input.workspace_id, input.agent_id)
      if (args.json) return yield* printJson(yield* encoded(Workspace, workspace))
      yield* Console.log(`Workspace ${workspace.id} now answers email with agent ${input.agent_id}.`)
    }).pipe(withEngine)
).pipe(Command.withDescription("Set the agent that answers the workspace's email conversations"))

const workspaceList = Command.make("list", { json }, (args) =>
  Effect.gen(function*() {
    const all = yield* (yield* Workspaces).list
    if (args.json) return yield* printJson({ data: yield* Effect.forEach(all, (w) => encoded(Workspace, w)) })
    if (all.length === 0) return yield* Console.log("No workspaces yet: `serve` creates one, or `workspace create`.")
    yield* Console.log(all.map((w) => `${w.id}  ${w.name}`).join("\n"))
  }).pipe(withEngine)).pipe(Command.withDescription("List the workspaces: their ids and names"))

const workspace = Command.make("workspace").pipe(
  Command.withDescription("Manage workspaces"),
  Command.withSubcommands([workspaceCreate, workspaceList, workspaceSetEmailAgent])
)

const userCreate = Command.make(
  "create",
  {
    workspace: workspaceOption,
    name: Flag.String("name").pipe(Flag.withDescription("The user's name (1-255 characters)")),
    email: Flag.String("email").pipe(Flag.withDescription("The user's email address")),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeCreateUser({ workspace_id: args.workspace, name: args.name, email: args.email })
        .pipe(Effect.mapError(asOptions({ workspace_id: "--workspace" })))
      const user = yield* (yield* Users).create(input)
      if (args.json) return yield* printJson(yield* encoded(User, user))
      yield* Console.log(`Created user "${user.name}" <${user.email}>: ${user.id}`)
    }).pipe(withEngine)
).pipe(Command.withDescription("Create a user (a human member) of a workspace"))

const user = Command.make("user").pipe(Command.withDescription("Manage users"), Command.withSubcommands([userCreate]))

const tokenCreate = Command.make(
  "create",
  {
    workspace: workspaceOption,
    name: Flag.String("name").pipe(Flag.withDescription("A name to recognise the token by (1-255 characters)")),
    // Checked by core, as for every other way of creating a token: an unknown ability is a validation error.
    ability: Flag.String("ability").pipe(
      Flag.atLeast(1),
      Flag.withDescription(
        "An ability, repeatable: external-api:read or external-api:write (every resource), or a resource's own " +
          "<resource>:read or <resource>:write (agents, customers, companies, conversations, training, " +
          "knowledge-base, webhooks; events:read); write also grants read"
      )
    ),
    expiresAt: Flag.String("expires-at").pipe(
      Flag.withDescription("When the token stops working: an ISO 8601 date-time in the future"),
      Flag.optional
    ),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeCreateApiToken({
        workspace_id: args.workspace,
        name: args.name,
        abilities: args.ability,
        expires_at: Option.getOrNull(args.expiresAt)
      }).pipe(Effect.mapError(asOptions({ workspace_id: "--workspace", abilities: "--ability" })))
      const issued = yield* (yield* Tokens).create(input).pipe(
        Effect.mapError((error) => error._tag === "ValidationError" ? asOptions({})(error) : error)
      )
      const plain = Redacted.value(issued.plain)
      if (args.json) {
        const { id, ...record } = yield* encoded(ApiToken, issued.token)
        return yield* printJson({ id, token: plain, ...record })
      }
      const expires = issued.token.expires_at === null
        ? "never expires"
        : `expires ${formatTimestamp(issued.token.expires_at)}`
      yield* Console.log(
        [
          `Created token "${issued.token.name}" (${issued.token.abilities.join(", ")}; ${expires}): ${issued.token.id}`,
          "The token, shown this once, as a line to paste into a shell:",
          exportLine(plain)
        ].join("\n")
      )
    }).pipe(withEngine)
).pipe(Command.withDescription("Create an API token for a workspace; its value is printed once"))

/**
 * `--id` takes the token id or, for convenience, the whole token value (`<id>|<secret>`): whoever runs the CLI
 * has the database, so revoking by value proves nothing more than revoking by id.
 */
const tokenRevoke = Command.make(
  "revoke",
  { id: Flag.String("id").pipe(Flag.withDescription("The token's id (or the whole token value)")) },
  (args) =>
    Effect.gen(function*() {
      const raw = args.id.includes("|") ? args.id.slice(0, args.id.indexOf("|")) : args.id
      const id = yield* decodeRequest(ApiTokenId)(raw).pipe(
        Effect.mapError(asOptions({ body: "--id" }))
      )
      yield* (yield* Tokens).revoke(id)
      yield* Console.log(`Revoked token ${id}.`)
    }).pipe(withEngine)
).pipe(Command.withDescription("Revoke an API token: it answers 401 from the next request on"))

const WorkspaceInput = Schema.Struct({ workspace_id: WorkspaceId })

/** A lost token cannot be shown again (only its hash is kept): this finds its id to revoke (docs/cli.md). */
const tokenList = Command.make("list", { workspace: workspaceOption, json }, (args) =>
  Effect.gen(function*() {
    const input = yield* decodeRequest(WorkspaceInput)({ workspace_id: args.workspace })
      .pipe(Effect.mapError(asOptions({ workspace_id: "--workspace" })))
    const tokens = yield* (yield* Tokens).list(input.workspace_id)
    if (args.json) return yield* printJson({ data: yield* Effect.forEach(tokens, (t) => encoded(ApiToken, t)) })
    if (tokens.length === 0) return yield* Console.log("No tokens in this workspace.")
    const when = (at: typeof tokens[number]["expires_at"], none: string) => at === null ? none : formatTimestamp(at)
    yield* Console.log(
      tokens.map((t) =>
        `${t.id}  "${t.name}"  ${t.abilities.join(",")}  expires ${when(t.expires_at, "never")}  last used ${
          when(t.last_used_at, "never")
        }`
      ).join("\n")
    )
  }).pipe(withEngine)).pipe(
    Command.withDescription("List a workspace's tokens: ids, names, abilities, expiry and last use, never values")
  )

const token = Command.make("token").pipe(
  Command.withDescription("Manage API tokens"),
  Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])
)

const WebhookInput = Schema.Struct({ workspace_id: WorkspaceId, ...CreateWebhook.fields })

/**
 * Subscriptions are made through core's `Webhooks` service (the engine's layer provides it), as the workspace's
 * system principal, so the URL policy (https only, no private targets unless `SUPPORT_WEBHOOK_ALLOW_PRIVATE`) is
 * the API's.
 */
const webhookCreate = Command.make(
  "create",
  {
    workspace: workspaceOption,
    url: Flag.String("url").pipe(Flag.withDescription("Where deliveries are POSTed: an https URL")),
    events: Flag.String("events").pipe(
      Flag.withDescription("Comma-separated event types (conversation.created,customer.updated) or * for all")
    ),
    description: Flag.String("description").pipe(Flag.withDescription("A note for people"), Flag.optional),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeRequest(WebhookInput)({
        workspace_id: args.workspace,
        url: args.url,
        events: args.events.split(",").map((event) => event.trim()).filter((event) => event.length > 0),
        ...Option.match(args.description, { onNone: () => ({}), onSome: (description) => ({ description }) })
      }).pipe(Effect.mapError(asOptions({ workspace_id: "--workspace" })))
      const workspace = yield* (yield* Workspaces).get(input.workspace_id)
      const { workspace_id: _, ...request } = input
      const created = yield* (yield* Webhooks).create(CreateWebhook.make(request)).pipe(
        Effect.provideService(Principal, Principal.system(workspace.id, workspace.organization_id)),
        Effect.mapError((error) => error._tag === "ValidationError" ? asOptions({})(error) : error)
      )
      const secret = Redacted.value(created.secret)
      if (args.json) {
        const { id, secret: _secret, ...record } = yield* encoded(WebhookWithSecret, created)
        return yield* printJson({ id, secret, ...record })
      }
      yield* Console.log(
        [
          `Created webhook for ${created.url} (events: ${created.events.join(", ")}): ${created.id}`,
          "Its signing secret, shown this once:",
          secret
        ].join("\n")
      )
    }).pipe(Effect.provide(ProvisioningEngine))
).pipe(Command.withDescription("Subscribe a URL to a workspace's events; the signing secret is printed once"))

const webhook = Command.make("webhook").pipe(
  Command.withDescription("Manage webhook subscriptions"),
  Command.withSubcommands([webhookCreate])
)

const migrateCommand = Command.make("migrate", {}, () =>
  Effect.gen(function*() {
    const url = yield* databaseUrl
    const ran = yield* migrate.pipe(Effect.provide(clientLayer(url)))
    const where = describeDatabase(url)
    if (ran.length === 0) return yield* Console.log(`${where}: already up to date.`)
    yield* Console.log(
      `${where}: applied ${ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`).join(", ")}.`
    )
  })).pipe(Command.withDescription("Apply pending database migrations and exit"))

const secretsReencrypt = Command.make("reencrypt", {}, () =>
  Effect.gen(function*() {
    const url = yield* databaseUrl
    const { changed, keyId } = yield* Effect.all({
      changed: reencryptSecrets,
      keyId: Effect.map(SecretCipher, (cipher) => cipher.keyId)
    }).pipe(Effect.provide(StorageLive(url)))
    yield* Console.log(`${describeDatabase(url)}: re-encrypted the secrets of ${changed} webhooks with key ${keyId}.`)
  })).pipe(
    Command.withDescription(
      "Re-encrypt every stored webhook secret with SUPPORT_SECRET_KEY (after a key rotation, while " +
        "SUPPORT_SECRET_KEY_PREVIOUS still holds the old key), then exit"
    )
  )

const secrets = Command.make("secrets").pipe(
  Command.withDescription("Manage the encryption of stored webhook secrets"),
  Command.withSubcommands([secretsReencrypt])
)

const PruneInput = Schema.Struct({ before: Schema.optionalKey(Timestamp) })

const RetentionEngine = Layer.provideMerge(
  Retention.layer.pipe(Layer.provide(RetentionConfig.fromEnv)),
  ProvisioningEngine
)

/** One pass of the pruner every server runs hourly, now; `--before` replaces both retention cut-offs. */
const pruneCommand = Command.make(
  "prune",
  {
    before: Flag.String("before").pipe(
      Flag.withDescription(
        "Delete events and finished deliveries older than this RFC 3339 date-time instead of what " +
          "SUPPORT_EVENT_RETENTION_DAYS and SUPPORT_DELIVERY_RETENTION_DAYS say"
      ),
      Flag.optional
    ),
    json
  },
  (args) =>
    Effect.gen(function*() {
      const input = yield* decodeRequest(PruneInput)(
        Option.match(args.before, { onNone: () => ({}), onSome: (before) => ({ before }) })
      ).pipe(Effect.mapError(asOptions({})))
      const counts = yield* (yield* Retention).prune(input.before === undefined ? {} : { before: input.before })
      if (args.json) return yield* printJson(counts)
      yield* Console.log(
        `Pruned ${counts.events} events, ${counts.deliveries} deliveries and ${counts.attempts} delivery attempts.`
      )
    }).pipe(Effect.provide(RetentionEngine))
).pipe(Command.withDescription("Delete events and finished webhook deliveries past their retention, now"))

const backupCommand = Command.make(
  "backup",
  { to: Flag.String("to").pipe(Flag.withDescription("The file to write the copy to; it must not exist")) },
  (args) =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      const written = yield* backupDatabase(url, args.to)
      yield* Console.log(
        written.keyFile === null
          ? `${describeDatabase(url)}: backed up to ${written.database}.`
          : `${describeDatabase(url)}: backed up to ${written.database}, its key file to ${written.keyFile}.`
      )
    })
).pipe(
  Command.withDescription(
    "Write a consistent copy of a SQLite database (and its key file) while servers run; PostgreSQL: use pg_dump"
  )
)

const serveCommand = Command.make("serve", {
  logFormat: Flag.Literals("log-format", ["json", "pretty"]).pipe(
    Flag.withDescription(
      "json (one object per line) or pretty; default SUPPORT_LOG_FORMAT, else pretty on a terminal and json otherwise"
    ),
    Flag.optional
  )
}, ({ logFormat }) => serveWith(logFormat)).pipe(
  Command.withDescription(
    "Migrate, bootstrap an empty database, and run the HTTP API and the webhook dispatcher"
  )
)

const mcpCommand = Command.make("mcp", {
  token: Flag.String("token").pipe(
    Flag.withDescription("The API token the tools run as (default: SUPPORT_TOKEN)"),
    Flag.optional
  )
}, ({ token }) => mcp(token)).pipe(
  Command.withDescription("Serve the Model Context Protocol over stdio for an AI assistant (docs/mcp.md)")
)

/** `support-engine` and its subcommands. */
export const command = Command.make("support-engine").pipe(
  Command.withDescription("support-engine: the standalone server and its provisioning commands"),
  Command.withSubcommands([
    serveCommand,
    mcpCommand,
    migrateCommand,
    workspace,
    user,
    token,
    webhook,
    secrets,
    pruneCommand,
    backupCommand
  ])
)

/** Runs the command line (`process.argv` shaped: executable and script first). */
export const run = (argv: ReadonlyArray<string>) => Command.runWith(command, { version: "0.1.0" })(argv.slice(2))
