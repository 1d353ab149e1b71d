/**
 * The provisioning commands of `support-engine` (D40), run as a child process on a temporary SQLite file; their
 * effects are checked through the engine on the same file.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  ApiToken,
  CreateAgent,
  Principal,
  Tokens,
  User,
  WebhookId,
  Webhooks,
  Workspace,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, FileSystem, Layer, Redacted, Schema } from "effect"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { cli, cliJson } from "./Harness.js"

const TIMEOUT = 120_000

/** A fresh database for one test: the CLI's environment and the engine on the same file. */
const fresh = Effect.gen(function*() {
  const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "support-engine-cli-" })
  const databaseUrl = `file:${dir}/support.db`
  return { env: { SUPPORT_DATABASE_URL: databaseUrl }, engine: supportEngineLayer({ databaseUrl, dispatcher: false }) }
})

const TokenOutput = Schema.Struct({ ...ApiToken.fields, token: Schema.String })

describe("support-engine provisioning (D40)", () => {
  it.live(
    "workspace, user and token create with --json; token revoke makes the token invalid",
    () =>
      Effect.gen(function*() {
        const { engine, env } = yield* fresh
        const workspace = yield* Effect.flatMap(
          cliJson(env, "workspace", "create", "--name", "Acme", "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        assert.strictEqual(workspace.name, "Acme")
        assert.isNull(workspace.email_agent_id)

        const user = yield* Effect.flatMap(
          cliJson(
            env,
            "user",
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "Ann",
            "--email",
            "ann@example.com",
            "--json"
          ),
          Schema.decodeUnknownEffect(User)
        )
        assert.deepStrictEqual([user.workspace_id, user.name, user.email], [workspace.id, "Ann", "ann@example.com"])

        const raw = yield* cliJson(
          env,
          "token",
          "create",
          "--workspace",
          workspace.id,
          "--name",
          "ci",
          "--ability",
          "external-api:read",
          "--expires-at",
          "2999-01-01T00:00:00Z",
          "--json"
        )
        // D40: `{"id", "token", ...}`, the token record in its API form after them.
        assert.deepStrictEqual(Object.keys(raw as object).slice(0, 2), ["id", "token"])
        const token = yield* Schema.decodeUnknownEffect(TokenOutput)(raw)
        assert.isTrue(token.token.startsWith(`${token.id}|`))
        assert.deepStrictEqual(token.abilities, ["external-api:read"])
        assert.strictEqual((raw as { expires_at: string }).expires_at, "2999-01-01T00:00:00.000+00:00")

        const context = yield* Layer.build(engine)
        const tokens = yield* Effect.provide(Tokens, context)
        const principal = yield* tokens.authenticate(Redacted.make(token.token))
        assert.strictEqual(principal.workspaceId, workspace.id)
        assert.deepStrictEqual(principal.abilities, ["external-api:read"])

        const revoked = yield* cli(env, "token", "revoke", "--id", token.id)
        assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
        assert.include(revoked.stdout, `Revoked token ${token.id}`)
        const after = yield* Effect.flip(tokens.authenticate(Redacted.make(token.token)))
        assert.strictEqual(after._tag, "Unauthenticated")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "token create without --json prints the value once; revoke takes the whole value too",
    () =>
      Effect.gen(function*() {
        const { engine, env } = yield* fresh
        const workspace = yield* Effect.flatMap(
          cliJson(env, "workspace", "create", "--name", "Acme", "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        const created = yield* cli(
          env,
          "token",
          "create",
          "--workspace",
          workspace.id,
          "--name",
          "ops",
          "--ability",
          "external-api:write"
        )
        assert.strictEqual(created.exitCode, 0, created.stderr)
        // The last line pastes into a shell as it is (issue 15 item 8): the `|` inside the token is quoted.
        const line = created.stdout.trim().split("\n").at(-1)!
        const value = execFileSync("sh", ["-c", `${line}; printf %s "$SUPPORT_TOKEN"`], { encoding: "utf8" })
        assert.match(value, /^[0-9a-f-]{36}\|[A-Za-z0-9_-]{40}$/)
        assert.strictEqual(line, `export SUPPORT_TOKEN='${value}'`)
        const context = yield* Layer.build(engine)
        const tokens = yield* Effect.provide(Tokens, context)
        const principal = yield* tokens.authenticate(Redacted.make(value))
        assert.deepStrictEqual(principal.abilities, ["external-api:write"])

        const revoked = yield* cli(env, "token", "revoke", "--id", value)
        assert.strictEqual(revoked.exitCode, 0, revoked.stderr)
        assert.strictEqual((yield* Effect.flip(tokens.authenticate(Redacted.make(value))))._tag, "Unauthenticated")

        const again = yield* cli(env, "token", "revoke", "--id", value)
        assert.strictEqual(again.exitCode, 1)
        assert.strictEqual(again.stderr.trim(), "Error: API token not found.")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "invalid input lists every failing option on stderr, prints nothing on stdout, exits 1",
    () =>
      Effect.gen(function*() {
        const { env } = yield* fresh
        const result = yield* cli(
          env,
          "user",
          "create",
          "--workspace",
          "nope",
          "--name",
          "",
          "--email",
          "bad",
          "--json"
        )
        assert.strictEqual(result.exitCode, 1)
        assert.strictEqual(result.stdout, "")
        assert.strictEqual(
          result.stderr.trim(),
          [
            "Error: invalid input.",
            "  --workspace: must be a UUID",
            "  --name: must not be empty",
            "  --email: must be an email address"
          ].join("\n")
        )

        const past = yield* cli(
          env,
          "token",
          "create",
          "--workspace",
          "01a1ff5a-ea5d-7f36-af38-7aceb1531d34",
          "--name",
          "x",
          "--ability",
          "external-api:read",
          "--expires-at",
          "yesterday"
        )
        assert.strictEqual(past.exitCode, 1)
        assert.strictEqual(past.stderr.trim(), "Error: invalid input.\n  --expires-at: must be an RFC 3339 date-time")

        // An unknown ability is core's validation error (D58), reported with the other invalid options.
        const ability = yield* cli(env, "token", "create", "--workspace", "x", "--name", "x", "--ability", "admin")
        assert.strictEqual(ability.exitCode, 1)
        assert.match(
          ability.stderr,
          /^Error: invalid input\.\n {2}--workspace: must be a UUID\n {2}--ability: must be one of: /
        )
        assert.include(ability.stderr, "customers:read, customers:write")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live("a workspace that does not exist is a clear not-found error (exit 1)", () =>
    Effect.gen(function*() {
      const { env } = yield* fresh
      const missing = "01a1ff5a-ea5d-7f36-af38-7aceb1531d34"
      const user = yield* cli(env, "user", "create", "--workspace", missing, "--name", "A", "--email", "a@b.c")
      assert.deepStrictEqual([user.exitCode, user.stdout, user.stderr.trim()], [1, "", "Error: Workspace not found."])
      const token = yield* cli(
        env,
        "token",
        "create",
        "--workspace",
        missing,
        "--name",
        "A",
        "--ability",
        "external-api:read"
      )
      assert.deepStrictEqual([token.exitCode, token.stderr.trim()], [1, "Error: Workspace not found."])
    }).pipe(Effect.provide(NodeServices.layer)), TIMEOUT)

  it.live(
    "workspace set-email-agent sets an agent of the workspace and refuses any other (D8)",
    () =>
      Effect.gen(function*() {
        const { engine, env } = yield* fresh
        const context = yield* Layer.build(engine)
        const [workspace, other] = yield* Effect.provide(
          Effect.flatMap(Workspaces, (workspaces) =>
            Effect.all([
              workspaces.create({ name: "Acme" }),
              workspaces.create({ name: "Other" })
            ])),
          context
        )
        const agentIn = (w: Workspace) =>
          Effect.flatMap(Agents, (agents) => agents.create(new CreateAgent({ name: "Mail bot" }))).pipe(
            Effect.provideService(Principal, Principal.system(w.id, w.organization_id)),
            Effect.provide(context)
          )
        const agent = yield* agentIn(workspace)
        const foreign = yield* agentIn(other)

        const updated = yield* Effect.flatMap(
          cliJson(env, "workspace", "set-email-agent", "--workspace", workspace.id, "--agent", agent.id, "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        assert.strictEqual(updated.email_agent_id, agent.id)

        const refused = yield* cli(
          env,
          "workspace",
          "set-email-agent",
          "--workspace",
          workspace.id,
          "--agent",
          foreign.id
        )
        assert.deepStrictEqual([refused.exitCode, refused.stderr.trim()], [1, "Error: Agent not found."])
        const stored = yield* Effect.provide(Effect.flatMap(Workspaces, (w) => w.get(workspace.id)), context)
        assert.strictEqual(stored.email_agent_id, agent.id)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "webhook create --json prints the subscription with its secret; the URL policy is the API's",
    () =>
      Effect.gen(function*() {
        const { engine, env } = yield* fresh
        const workspace = yield* Effect.flatMap(
          cliJson(env, "workspace", "create", "--name", "Acme", "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        // D50: documentation and other special-purpose addresses are refused by default (an input only: nothing
        // connects); the subscription itself points at loopback with private targets allowed.
        const documentation = yield* cli(
          env,
          ...["webhook", "create", "--workspace", workspace.id, "--url", "https://203.0.113.10/hooks", "--events", "*"]
        )
        assert.strictEqual(documentation.exitCode, 1)
        assert.include(documentation.stderr, "SUPPORT_WEBHOOK_ALLOW_PRIVATE=true")
        const raw = yield* cliJson(
          { ...env, SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true" },
          "webhook",
          "create",
          "--workspace",
          workspace.id,
          "--url",
          "https://127.0.0.1:9/hooks",
          "--events",
          "conversation.created, customer.updated",
          "--description",
          "CRM sync",
          "--json"
        )
        assert.deepStrictEqual(Object.keys(raw as object).slice(0, 2), ["id", "secret"])
        const created = raw as { id: string; secret: string; events: Array<string>; is_active: boolean }
        assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
        assert.deepStrictEqual(created.events, ["conversation.created", "customer.updated"])
        assert.isTrue(created.is_active)

        const context = yield* Layer.build(engine)
        const stored = yield* Effect.flatMap(Webhooks, (webhooks) => webhooks.get(WebhookId.make(created.id))).pipe(
          Effect.provideService(Principal, Principal.system(workspace.id, workspace.organization_id)),
          Effect.provide(context)
        )
        assert.deepStrictEqual([stored.url, stored.description], ["https://127.0.0.1:9/hooks", "CRM sync"])

        const local = [
          "webhook",
          "create",
          "--workspace",
          workspace.id,
          "--url",
          "http://127.0.0.1:9/hook",
          "--events",
          "*"
        ]
        const refused = yield* cli(env, ...local)
        assert.deepStrictEqual([refused.exitCode, refused.stderr.trim()], [
          1,
          "Error: invalid input.\n  --url: must be an https URL"
        ])
        const allowed = yield* cli({ ...env, SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true" }, ...local)
        assert.strictEqual(allowed.exitCode, 0, allowed.stderr)
        assert.match(
          allowed.stdout,
          /^Created webhook for http:\/\/127\.0\.0\.1:9\/hook \(events: \*\): [0-9a-f-]{36}\n/
        )

        const invalid = yield* cli(env, "webhook", "create", "--workspace", workspace.id, "--url", "x", "--events", ",")
        assert.strictEqual(invalid.exitCode, 1)
        assert.include(invalid.stderr, "--url: must be an absolute http(s) URL")
        assert.include(invalid.stderr, "--events: must have at least 1 item")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "migrate applies every migration once, then reports the database up to date",
    () =>
      Effect.gen(function*() {
        const { env } = yield* fresh
        const first = yield* cli(env, "migrate")
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.match(first.stdout, /\(SQLite\): applied 0001_foundation, 0002_customers_companies, /)
        const second = yield* cli(env, "migrate")
        assert.strictEqual(second.exitCode, 0, second.stderr)
        assert.match(second.stdout, /support\.db \(SQLite\): already up to date\.\n$/)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "secrets reencrypt moves webhook secrets to a new key; the old key alone then no longer starts",
    () =>
      Effect.gen(function*() {
        const { env } = yield* fresh
        const keyA = randomBytes(32).toString("base64")
        const keyB = randomBytes(32).toString("hex")
        const withA = { ...env, SUPPORT_SECRET_KEY: keyA, SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true" }
        const workspace = yield* Effect.flatMap(
          cliJson(withA, "workspace", "create", "--name", "Acme", "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        const hook = [
          "webhook",
          "create",
          "--workspace",
          workspace.id,
          "--url",
          "http://127.0.0.1:9/h",
          "--events",
          "*"
        ]
        assert.strictEqual((yield* cli(withA, ...hook)).exitCode, 0)

        const rotating = { ...withA, SUPPORT_SECRET_KEY: keyB, SUPPORT_SECRET_KEY_PREVIOUS: keyA }
        const moved = yield* cli(rotating, "secrets", "reencrypt")
        assert.strictEqual(moved.exitCode, 0, moved.stderr)
        assert.match(moved.stdout, /\(SQLite\): re-encrypted the secrets of 1 webhooks with key [\w-]{11}\.\n$/)
        const again = yield* cli(rotating, "secrets", "reencrypt")
        assert.match(again.stdout, /re-encrypted the secrets of 0 webhooks/)

        assert.strictEqual((yield* cli({ ...withA, SUPPORT_SECRET_KEY: keyB }, ...hook)).exitCode, 0)
        const old = yield* cli(withA, ...hook)
        assert.strictEqual(old.exitCode, 1)
        assert.include(old.stderr, "Error: invalid configuration")
        assert.include(old.stderr, "SUPPORT_SECRET_KEY")
        assert.notInclude(old.stderr, keyA)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live("invalid configuration is reported with the variable's name (exit 1)", () =>
    Effect.gen(function*() {
      const { env } = yield* fresh
      const result = yield* cli({ ...env, SUPPORT_PORT: "eighty" }, "serve")
      assert.strictEqual(result.exitCode, 1)
      assert.include(result.stderr, "Error: invalid configuration")
      assert.include(result.stderr, "SUPPORT_PORT")
    }).pipe(Effect.provide(NodeServices.layer)), TIMEOUT)

  it.live(
    "a lost token: workspace list and token list find the ids, token create makes another (issue 15 item 8)",
    () =>
      Effect.gen(function*() {
        const { env } = yield* fresh
        const workspace = yield* Effect.flatMap(
          cliJson(env, "workspace", "create", "--name", "Lost", "--json"),
          Schema.decodeUnknownEffect(Workspace)
        )
        const listed = yield* cliJson(env, "workspace", "list", "--json")
        assert.deepStrictEqual((listed as { data: Array<{ id: string }> }).data.map((w) => w.id), [workspace.id])
        const plain = yield* cli(env, "workspace", "list")
        assert.strictEqual(plain.stdout, `${workspace.id}  Lost\n`)

        const args = ["--workspace", workspace.id, "--name", "second", "--ability", "external-api:read", "--json"]
        const created = yield* Effect.flatMap(
          cliJson(env, "token", "create", ...args),
          Schema.decodeUnknownEffect(TokenOutput)
        )
        const tokens = yield* cliJson(env, "token", "list", "--workspace", workspace.id, "--json")
        const data = (tokens as { data: Array<Record<string, unknown>> }).data
        assert.deepStrictEqual(data.map((t) => [t.id, t.name]), [[created.id, "second"]])
        assert.notProperty(data[0], "token")
        const text = yield* cli(env, "token", "list", "--workspace", workspace.id)
        assert.match(
          text.stdout,
          new RegExp(`^${created.id}  "second"  external-api:read  expires never  last used never\n$`)
        )

        // D58: --ability repeats; the token carries each resource ability given.
        const narrow = yield* cli(
          env,
          "token",
          "create",
          "--workspace",
          workspace.id,
          "--name",
          "sync",
          "--ability",
          "customers:read",
          "--ability",
          "events:read"
        )
        assert.strictEqual(narrow.exitCode, 0)
        assert.match(narrow.stdout, /^Created token "sync" \(customers:read, events:read; never expires\): /)

        const unknown = yield* cli(env, "token", "list", "--workspace", "00000000-0000-7000-8000-000000000000")
        assert.strictEqual(unknown.exitCode, 1)
        assert.strictEqual(unknown.stderr.trim(), "Error: Workspace not found.")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "help has no colour codes on a pipe; an unknown option is named (issue 15 item 8)",
    () =>
      Effect.gen(function*() {
        const { env } = yield* fresh
        const help = yield* cli(env, "--help")
        assert.strictEqual(help.exitCode, 0, help.stderr)
        assert.include(help.stdout, "USAGE")
        assert.notInclude(help.stdout, "\u001b[")
        const unknown = yield* cli(env, "workspace", "create", "--name", "Acme", "--colour", "red")
        assert.strictEqual(unknown.exitCode, 1)
        assert.include(unknown.stdout + unknown.stderr, "--colour")
        assert.notInclude(unknown.stdout + unknown.stderr, "\u001b[")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})
