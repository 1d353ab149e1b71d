/**
 * The operations commands through the built executable: `prune` (D56) and `backup` (D57), the latter taken while a
 * server writes, then restored (stop, copy back with the key, start) and checked.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CreateWorkspace, Events, ListEvents, Principal, Transactor, Workspaces } from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import { Effect, Fiber, FileSystem, Ref } from "effect"
import { createHmac } from "node:crypto"
import { copyFileSync, existsSync, rmSync, statSync } from "node:fs"
import { cli, cliJson, eventually, fetchJson, receiver, serve } from "./Harness.js"

const TIMEOUT = 180_000

const freshDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "support-engine-ops-" })
)

const bootstrapped = (stdout: string) => {
  const token = /^ {2}export SUPPORT_TOKEN='([^']+)'$/m.exec(stdout)?.[1]
  assert.isDefined(token, stdout)
  return { authorization: `Bearer ${token!}`, "content-type": "application/json" }
}

describe("support-engine prune (D56)", () => {
  it.live(
    "one pass now: --before replaces the cut-offs, --json prints the counts, totals follow",
    () =>
      Effect.gen(function*() {
        const dir = yield* freshDir
        const databaseUrl = `file:${dir}/support.db`
        const env = { SUPPORT_DATABASE_URL: databaseUrl }
        const engine = supportEngineLayer({ databaseUrl, retention: false, dispatcher: false })
        const total = Effect.gen(function*() {
          const [workspace] = yield* (yield* Workspaces).list
          const page = yield* (yield* Events).list(new ListEvents({})).pipe(
            Effect.provideService(Principal, Principal.system(workspace!.id, workspace!.organization_id))
          )
          return page.meta.total
        }).pipe(Effect.provide(engine, { local: true }))
        const recorded = yield* Effect.gen(function*() {
          const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Acme" }))
          const [tx, events] = [yield* Transactor, yield* Events]
          yield* Effect.forEach(["a", "b", "c"], (id) => tx.withTransaction(events.record("agent.created", { id })))
            .pipe(
              Effect.provideService(Principal, Principal.system(workspace.id, workspace.organization_id))
            )
        }).pipe(Effect.provide(engine, { local: true }), Effect.andThen(total))
        assert.strictEqual(recorded, 3)

        assert.deepStrictEqual(
          yield* cliJson(env, "prune", "--json"),
          { events: 0, deliveries: 0, attempts: 0 },
          "nothing is 90 days old yet"
        )
        const plain = yield* cli(env, "prune")
        assert.strictEqual(plain.exitCode, 0, plain.stderr)
        assert.strictEqual(plain.stdout.trim(), "Pruned 0 events, 0 deliveries and 0 delivery attempts.")

        const future = new Date(Date.now() + 60_000).toISOString()
        assert.deepStrictEqual(
          yield* cliJson(env, "prune", "--before", future, "--json"),
          { events: recorded, deliveries: 0, attempts: 0 }
        )
        assert.strictEqual(yield* total, 0, "the list total counts what is left")

        const bad = yield* cli(env, "prune", "--before", "soon")
        assert.strictEqual(bad.exitCode, 1)
        assert.include(bad.stderr, "--before: must be an RFC 3339 date-time")

        const config = yield* cli({ ...env, SUPPORT_EVENT_RETENTION_DAYS: "3651" }, "prune")
        assert.strictEqual(config.exitCode, 1)
        assert.include(config.stderr, "SUPPORT_EVENT_RETENTION_DAYS")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "serve refuses to start with an invalid retention, naming the variable",
    () =>
      Effect.gen(function*() {
        const dir = yield* freshDir
        const result = yield* cli(
          { SUPPORT_DATABASE_URL: `file:${dir}/support.db`, SUPPORT_DELIVERY_RETENTION_DAYS: "-1" },
          "serve"
        )
        assert.strictEqual(result.exitCode, 1)
        assert.include(result.stderr, "SUPPORT_DELIVERY_RETENTION_DAYS")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})

describe("support-engine backup (D57)", () => {
  it.live(
    "a copy taken while a server writes restores every row committed before it, and its webhook secrets decrypt",
    () =>
      Effect.gen(function*() {
        // Without SUPPORT_SECRET_KEY (the test environment sets one), the database gets its own key file.
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            const key = process.env["SUPPORT_SECRET_KEY"]
            delete process.env["SUPPORT_SECRET_KEY"]
            return key
          }),
          (key) => Effect.sync(() => key === undefined ? undefined : void (process.env["SUPPORT_SECRET_KEY"] = key))
        )
        const dir = yield* freshDir
        const database = `${dir}/support.db`
        const env = { SUPPORT_DATABASE_URL: `file:${database}`, SUPPORT_WEBHOOK_ALLOW_PRIVATE: "true" }
        const hook = yield* receiver

        const first = yield* serve(env, "first")
        const headers = bootstrapped(yield* first.stdout)
        const created = yield* fetchJson(`${first.baseUrl}/v1/webhooks`, {
          method: "POST",
          headers,
          body: JSON.stringify({ url: hook.url, events: ["agent.created"] })
        })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const webhook = created.body as { readonly id: string; readonly secret: string }

        // A steady writer: every company the server answered 201 for is committed.
        const committed = yield* Ref.make<ReadonlyArray<string>>([])
        const writer = yield* Effect.forkChild(Effect.forever(Effect.gen(function*() {
          const answer = yield* fetchJson(`${first.baseUrl}/v1/companies`, {
            method: "POST",
            headers,
            body: JSON.stringify({ name: "Writer" })
          })
          if (answer.status === 201) {
            const id = (answer.body as { readonly id: string }).id
            yield* Ref.update(committed, (ids) => [...ids, id])
          }
        })))
        yield* eventually(Effect.map(Ref.get(committed), (ids) => ids.length >= 20), () => Effect.succeed("no writes"))

        const before = yield* Ref.get(committed)
        const backup = yield* cli(env, "backup", "--to", `${dir}/backup.db`)
        assert.strictEqual(backup.exitCode, 0, backup.stderr)
        assert.include(backup.stdout, `backed up to ${dir}/backup.db, its key file to ${dir}/backup.db.key.`)
        yield* eventually(
          Effect.map(Ref.get(committed), (ids) => ids.length > before.length + 5),
          () => Effect.succeed("the writer stopped during the backup")
        )
        yield* Fiber.interrupt(writer)
        assert.strictEqual(statSync(`${dir}/backup.db.key`).mode & 0o777, 0o600)
        const again = yield* cli(env, "backup", "--to", `${dir}/backup.db`)
        assert.strictEqual(again.exitCode, 1)
        assert.include(again.stderr, "already exists")

        // Restore: stop, copy back the database and its key (nothing of the old write-ahead log left), start.
        assert.strictEqual(yield* first.stop, 0)
        for (const suffix of ["-wal", "-shm"]) rmSync(`${database}${suffix}`, { force: true })
        copyFileSync(`${dir}/backup.db`, database)
        copyFileSync(`${dir}/backup.db.key`, `${database}.key`)
        const second = yield* serve(env, "restored")
        for (const id of before) {
          const company = yield* fetchJson(`${second.baseUrl}/v1/companies/${id}`, { headers })
          assert.strictEqual(company.status, 200, `company ${id} committed before the backup`)
        }
        // The restored webhook's stored secret decrypts: the ping is signed with it.
        const ping = yield* fetchJson(`${second.baseUrl}/v1/webhooks/${webhook.id}/ping`, { method: "POST", headers })
        assert.strictEqual(ping.status, 202, JSON.stringify(ping.body))
        const delivered = yield* hook.next
        assert.strictEqual(
          delivered.headers["x-service-signature"],
          createHmac("sha256", webhook.secret).update(delivered.body).digest("hex")
        )
        assert.strictEqual(yield* second.stop, 0)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "on PostgreSQL it exits 1 and names pg_dump",
    () =>
      Effect.gen(function*() {
        const dir = yield* freshDir
        const result = yield* cli(
          { SUPPORT_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" },
          "backup",
          "--to",
          `${dir}/backup.db`
        )
        assert.strictEqual(result.exitCode, 1)
        assert.include(result.stderr, "pg_dump")
        assert.isFalse(existsSync(`${dir}/backup.db`))
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )
})
