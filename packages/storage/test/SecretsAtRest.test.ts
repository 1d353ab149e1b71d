/**
 * Webhook secrets at rest (issue 16 item 8, D46): encrypted with AES-256-GCM under SUPPORT_SECRET_KEY, the key
 * checked at start, plain text of earlier versions encrypted at start, key rotation with SUPPORT_SECRET_KEY_PREVIOUS
 * and `reencryptSecrets`, expired previous secrets erased. On SQLite files and on PostgreSQL (a fresh database per
 * test when SUPPORT_TEST_PG_URL is set).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  CreateCustomer,
  Customers,
  DeliveryQueue,
  EngineLive,
  IdGenerator,
  PreviousSecretSweep,
  SecretCipher,
  Transactor,
  Webhook,
  WebhookId,
  WebhookRepo,
  webhookSecretContext,
  type WorkspaceId
} from "@support-engine/core"
import { ConfigProvider, DateTime, Duration, Effect, Layer, Redacted, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"
import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageLive } from "../src/Storage.js"
import { reencryptSecrets } from "../src/webhooks/SecretsAtRest.js"
import { as, makeWorkspace, type TestEngine } from "./conformance/Harness.js"
import { adminUrl, createDatabase } from "./PgDatabase.js"

const SECRET = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMw=="
const NEXT_SECRET = "whsec_bmV4dC1uZXh0LW5leHQtbmV4dC1uZXh0LW5leHQtMTI="
const KEY_A = randomBytes(32).toString("base64")
const KEY_B = randomBytes(32).toString("hex")

const dir = mkdtempSync(join(tmpdir(), "support-engine-secrets-"))
let files = 0
const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  await Promise.all(drops.map((drop) => drop()))
})

interface Target {
  readonly name: "sqlite" | "postgres"
  readonly fresh: Effect.Effect<string>
}

const targets: ReadonlyArray<Target> = [
  { name: "sqlite", fresh: Effect.sync(() => `file:${join(dir, `secrets-${++files}.db`)}`) },
  ...(adminUrl === undefined ? [] : [{
    name: "postgres" as const,
    fresh: Effect.promise(async () => {
      const database = await createDatabase()
      drops.push(database.drop)
      return database.url
    })
  }])
]

/** The engine on `url` with exactly `env` as configuration (so the shared test key is not seen). */
const run = <A, E>(url: string, env: Record<string, string>, program: Effect.Effect<A, E, TestEngine>) =>
  program.pipe(
    Effect.provide(EngineLive.pipe(Layer.provideMerge(StorageLive(url)))),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))
  )

const startFailure = (url: string, env: Record<string, string>) =>
  Effect.map(Effect.flip(run(url, env, Effect.void)), String)

const Columns = Schema.Struct({
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String)
})

const eventually = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      if (yield* condition) return
      yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
    }
    return yield* Effect.die(new Error("the previous secret was not erased"))
  })

const columnsOf = (id: WebhookId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT secret, previous_secret FROM webhooks WHERE id = ${id}`).pipe(
    Effect.flatMap((rows) => Schema.decodeUnknownEffect(Columns)(rows[0])),
    Effect.orDie
  )

const addWebhook = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const created = yield* DateTime.now
    const webhook = new Webhook({
      id: WebhookId.make(yield* (yield* IdGenerator).uuid),
      url: "https://hooks.example.com/in",
      events: ["*"],
      description: null,
      is_active: true,
      consecutive_failures: 0,
      deactivated_at: null,
      deactivation_reason: null,
      previous_secret_expires_at: null,
      created_at: created,
      updated_at: created
    })
    yield* (yield* Transactor).withTransaction((yield* WebhookRepo).insert(workspaceId, webhook, Redacted.make(SECRET)))
    return webhook
  }).pipe(Effect.orDie)

const rotate = (workspaceId: WorkspaceId, id: WebhookId, graceSeconds: number) =>
  Effect.gen(function*() {
    const at = yield* DateTime.now
    yield* (yield* WebhookRepo).rotateSecret(
      workspaceId,
      id,
      Redacted.make(NEXT_SECRET),
      graceSeconds === 0 ? null : DateTime.add(at, { seconds: graceSeconds }),
      at
    )
  }).pipe(Effect.orDie)

/** A workspace with one webhook whose secret was rotated (grace one hour). */
const seed = Effect.gen(function*() {
  const { principal, workspace } = yield* makeWorkspace()
  const webhook = yield* addWebhook(workspace.id)
  yield* rotate(workspace.id, webhook.id, 3600)
  return { principal, workspace, webhook }
})

/** The secrets the dispatcher would sign with for an event of the workspace. */
const claimedSecrets = (principal: Parameters<typeof as>[0]) =>
  Effect.gen(function*() {
    yield* (yield* Customers).create(new CreateCustomer({ email: "a@x.io" })).pipe(as(principal))
    const now = yield* DateTime.now
    const queue = yield* DeliveryQueue
    // The dispatcher's fan-out step, then its claim (issue 16 item 2).
    yield* queue.fanOut(10)
    const claimed = yield* queue.claimDue({
      now,
      leaseUntil: DateTime.add(now, { seconds: 15 }),
      claimant: "test",
      limit: 10
    })
    assert.strictEqual(claimed.length, 1)
    const { current, previous } = claimed[0]!.secrets
    return [Redacted.value(current), previous === null ? null : Redacted.value(previous)]
  }).pipe(Effect.orDie)

for (const target of targets) {
  describe(`Webhook secrets at rest (${target.name})`, () => {
    it.effect("stored encrypted (v1:<key id>:…), bound to the webhook; claims sign with the plain secret", () =>
      Effect.gen(function*() {
        const url = yield* target.fresh
        yield* run(
          url,
          { SUPPORT_SECRET_KEY: KEY_A },
          Effect.gen(function*() {
            const cipher = yield* SecretCipher
            const { principal, webhook } = yield* seed
            const stored = yield* columnsOf(webhook.id)
            for (const value of [stored.secret, stored.previous_secret!]) {
              assert.match(value, new RegExp(`^v1:${cipher.keyId}:[\\w-]{16}:[\\w-]+$`))
              assert.notInclude(value, "whsec_")
            }
            // A fresh nonce per value: the same secret twice is two different stored values.
            assert.notStrictEqual(
              cipher.encrypt(Redacted.make(SECRET), "x"),
              cipher.encrypt(Redacted.make(SECRET), "x")
            )
            const opened = cipher.decrypt(stored.secret, webhookSecretContext(webhook.id))
            assert.strictEqual(Result.map(opened, Redacted.value).pipe(Result.getOrThrow), NEXT_SECRET)
            // Copied to another webhook's row, it does not decrypt.
            const moved = cipher.decrypt(stored.secret, webhookSecretContext("another-webhook"))
            assert.isTrue(Result.isFailure(moved) && moved.failure._tag === "SecretDecryptionFailed")
            assert.deepStrictEqual(yield* claimedSecrets(principal), [NEXT_SECRET, SECRET])
          })
        )
      }))

    it.effect("a key that does not decrypt what is stored fails the start with a ConfigError naming the key", () =>
      Effect.gen(function*() {
        const url = yield* target.fresh
        yield* run(url, { SUPPORT_SECRET_KEY: KEY_A }, seed)
        const error = yield* startFailure(url, { SUPPORT_SECRET_KEY: KEY_B })
        assert.include(error, "SUPPORT_SECRET_KEY")
        assert.include(error, "were encrypted with key")
        const malformed = yield* startFailure(url, { SUPPORT_SECRET_KEY: "c2hvcnQ=" })
        assert.include(malformed, "SUPPORT_SECRET_KEY")
        assert.include(malformed, "must be 32 bytes")
        assert.notInclude(malformed, "c2hvcnQ")
      }))

    it.effect("key rotation: the previous key still decrypts; reencryptSecrets moves every value to the new key", () =>
      Effect.gen(function*() {
        const url = yield* target.fresh
        const { principal, webhook } = yield* run(url, { SUPPORT_SECRET_KEY: KEY_A }, seed)
        const rotated = { SUPPORT_SECRET_KEY: KEY_B, SUPPORT_SECRET_KEY_PREVIOUS: KEY_A }
        yield* run(
          url,
          rotated,
          Effect.gen(function*() {
            const cipher = yield* SecretCipher
            assert.deepStrictEqual(yield* claimedSecrets(principal), [NEXT_SECRET, SECRET])
            assert.strictEqual(yield* reencryptSecrets, 1)
            const stored = yield* columnsOf(webhook.id)
            assert.isTrue(stored.secret.startsWith(`v1:${cipher.keyId}:`))
            assert.isTrue(stored.previous_secret!.startsWith(`v1:${cipher.keyId}:`))
            assert.strictEqual(yield* reencryptSecrets, 0)
          })
        )
        // Without the previous key now, and the old key alone no longer starts.
        yield* run(url, { SUPPORT_SECRET_KEY: KEY_B }, Effect.void)
        assert.include(yield* startFailure(url, { SUPPORT_SECRET_KEY: KEY_A }), "were encrypted with key")
      }))

    it.effect("plain-text secrets of earlier versions are encrypted at start and still sign", () =>
      Effect.gen(function*() {
        const url = yield* target.fresh
        const { principal, webhook } = yield* run(
          url,
          { SUPPORT_SECRET_KEY: KEY_A },
          Effect.gen(function*() {
            const seeded = yield* seed
            const sql = yield* SqlClient.SqlClient
            // What an earlier version left: both columns in plain text.
            yield* sql`UPDATE webhooks SET secret = ${NEXT_SECRET}, previous_secret = ${SECRET}
              WHERE id = ${seeded.webhook.id}`.pipe(Effect.orDie)
            return seeded
          })
        )
        yield* run(
          url,
          { SUPPORT_SECRET_KEY: KEY_A },
          Effect.gen(function*() {
            const stored = yield* columnsOf(webhook.id)
            assert.isTrue(stored.secret.startsWith("v1:"))
            assert.isTrue(stored.previous_secret!.startsWith("v1:"))
            assert.deepStrictEqual(yield* claimedSecrets(principal), [NEXT_SECRET, SECRET])
          })
        )
      }))

    it.effect("the previous secret is erased (NULL) when its grace period ends, under TestClock (D46)", () =>
      Effect.gen(function*() {
        const url = yield* target.fresh
        yield* run(
          url,
          { SUPPORT_SECRET_KEY: KEY_A },
          Effect.gen(function*() {
            const { webhook, workspace } = yield* seed
            yield* Effect.gen(function*() {
              yield* TestClock.adjust(Duration.minutes(59))
              assert.isNotNull((yield* columnsOf(webhook.id)).previous_secret)
              // The grace ends at 60 minutes; the sweep runs every minute.
              yield* TestClock.adjust(Duration.minutes(2))
              // The sweep's statement is real I/O (asynchronous on PostgreSQL): wait for it in real time.
              yield* eventually(Effect.map(columnsOf(webhook.id), (stored) => stored.previous_secret === null))
              const read = yield* Effect.flatMap(
                (yield* WebhookRepo).findById(workspace.id, webhook.id),
                Effect.fromOption
              )
              assert.isNull(read.previous_secret_expires_at)
            }).pipe(Effect.provide(PreviousSecretSweep.layer))
          })
        )
      }))

    if (target.name === "postgres") {
      it.effect("PostgreSQL without SUPPORT_SECRET_KEY refuses to start, saying how to make a key", () =>
        Effect.gen(function*() {
          const error = yield* startFailure(yield* target.fresh, {})
          assert.include(error, "SUPPORT_SECRET_KEY is required with PostgreSQL")
          assert.include(error, "openssl rand -base64 32")
        }))
    } else {
      it.effect("SQLite without a key: a 0600 key file next to the database, made once and used again", () =>
        Effect.gen(function*() {
          const url = yield* target.fresh
          const { principal, webhook } = yield* run(url, {}, seed)
          const keyFile = `${url.slice("file:".length)}.key`
          assert.strictEqual(statSync(keyFile).mode & 0o777, 0o600)
          yield* run(
            url,
            {},
            Effect.gen(function*() {
              assert.deepStrictEqual(yield* claimedSecrets(principal), [NEXT_SECRET, SECRET])
              assert.isTrue((yield* columnsOf(webhook.id)).secret.startsWith("v1:"))
            })
          )
          // An in-memory database needs no key: a random one for the process.
          yield* run(
            "file::memory:",
            {},
            Effect.gen(function*() {
              const seeded = yield* seed
              assert.isTrue((yield* columnsOf(seeded.webhook.id)).secret.startsWith("v1:"))
              assert.deepStrictEqual(yield* claimedSecrets(seeded.principal), [NEXT_SECRET, SECRET])
            })
          )
        }))
    }
  })
}
