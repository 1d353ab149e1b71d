/**
 * Webhook secrets at rest (issue 16 item 8): which key encrypts them, and what storage does with them at start.
 *
 * The key is `SUPPORT_SECRET_KEY`. Without it, a SQLite file database uses a key file next to it
 * (`<database file>.key`, mode 0600, made on first start), an in-memory database a random key for the process, and
 * PostgreSQL refuses to start: its data lives on a server that other machines share, so a key in a local file would
 * be lost with the machine or differ between processes. At start, storage encrypts the plain-text secrets earlier
 * versions wrote, refuses a key that does not decrypt what is stored, and erases expired previous secrets.
 */
import { SqlClient } from "@effect/sql"
import { PersistenceError, SecretCipher, SecretKeysConfig, webhookSecretContext } from "@support-engine/core"
import { parseSecretKey } from "@support-engine/core"
import { ConfigError, DateTime, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { makeAesGcmCipher } from "../shared/AesGcmCipher.js"
import { ts } from "../shared/Columns.js"
import type { DatabaseUrl } from "../shared/Database.js"
import * as RowSchema from "../shared/RowSchema.js"
import { mapSqlError, toPersistenceError } from "../shared/SqlErrors.js"

const KEY = "SUPPORT_SECRET_KEY"

const invalid = (message: string) => ConfigError.InvalidData([KEY], message)

/** The key file of a SQLite database file: read it, or make it (exclusively, so two first starts agree). */
const keyFile = (path: string) =>
  Effect.gen(function*() {
    const made = yield* Effect.try({
      try: () => {
        writeFileSync(path, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" })
        return true
      },
      catch: (error) => error as NodeJS.ErrnoException
    }).pipe(
      Effect.catchIf((error) => error.code === "EEXIST", () => Effect.succeed(false)),
      Effect.mapError((error) => invalid(`not set, and the key file ${path} could not be made (${error.code})`))
    )
    if (made) {
      yield* Effect.logInfo(`Webhook secrets are encrypted with a new key in ${path}; back it up with the database`)
    }
    const text = yield* Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: (error) =>
        invalid(`not set, and the key file ${path} could not be read (${(error as NodeJS.ErrnoException).code})`)
    })
    if ((statSync(path).mode & 0o077) !== 0) {
      yield* Effect.logWarning(`The key file ${path} can be read by other users; chmod 600 it`)
    }
    return yield* Either.match(parseSecretKey(text), {
      onLeft: (message) => Effect.fail(invalid(`not set, and the key file ${path} ${message}`)),
      onRight: (key) => Effect.succeed(Redacted.make(key))
    })
  })

/**
 * The cipher for the database `database` names; `undefined` for a client the host made, which needs the key set.
 * Fails with a `ConfigError` naming `SUPPORT_SECRET_KEY` when there is no usable key.
 */
export const secretCipherLayer = (
  database: DatabaseUrl | undefined
): Layer.Layer<SecretCipher, ConfigError.ConfigError> =>
  Layer.effect(
    SecretCipher,
    Effect.gen(function*() {
      const keys = yield* SecretKeysConfig
      const current = Option.isSome(keys.current)
        ? keys.current.value
        : database === undefined
        ? yield* Effect.fail(ConfigError.MissingData([KEY], `${KEY} is required when storage runs on a host's client`))
        : database._tag === "Postgres"
        ? yield* Effect.fail(ConfigError.MissingData(
          [KEY],
          `${KEY} is required with PostgreSQL: 32 random bytes in base64 or hex, for example \`openssl rand -base64 32\``
        ))
        : database.filename === ":memory:"
        ? Redacted.make(new Uint8Array(randomBytes(32)))
        : yield* keyFile(`${database.filename}.key`)
      return makeAesGcmCipher(current, keys.previous)
    })
  )

const StoredSecrets = Schema.Struct({
  id: Schema.String,
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String)
})

/** Stored values as the current key would write them; `keep` says which values stay as they are. */
const rewrite = (keep: (stored: string) => boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* SecretCipher
    const rows = yield* RowSchema.findAll({
      Request: Schema.Void,
      Result: StoredSecrets,
      execute: () => sql`SELECT id, secret, previous_secret FROM webhooks`
    })(undefined)
    const again = (stored: string, id: string) =>
      keep(stored)
        ? Effect.succeed(stored)
        : Effect.map(
          Option.isSome(cipher.keyIdOf(stored))
            ? Effect.suspend(() => cipher.decrypt(stored, webhookSecretContext(id)))
            : Effect.succeed(Redacted.make(stored)),
          (plain) => cipher.encrypt(plain, webhookSecretContext(id))
        )
    let changed = 0
    for (const row of rows) {
      if (keep(row.secret) && (row.previous_secret === null || keep(row.previous_secret))) continue
      const secret = yield* again(row.secret, row.id)
      const previous = row.previous_secret === null ? null : yield* again(row.previous_secret, row.id)
      // Only if the row is still as read: a rotation in another process in the meantime wins.
      yield* sql`UPDATE webhooks SET secret = ${secret}, previous_secret = ${previous}
        WHERE id = ${row.id} AND secret = ${row.secret}`
      changed++
    }
    return changed
  }).pipe(Effect.mapError((error) =>
    error._tag === "SecretDecryptionFailed"
      ? new PersistenceError({ reason: error.message, cause: error })
      : toPersistenceError(error)
  ))

/**
 * Re-encrypts every stored secret that is not under the current key (plain text included), in one transaction;
 * answers how many webhooks changed. `support-engine secrets reencrypt` runs it after a key rotation.
 */
export const reencryptSecrets: Effect.Effect<number, PersistenceError, SqlClient.SqlClient | SecretCipher> = Effect
  .gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* SecretCipher
    return yield* rewrite((stored) => Option.contains(cipher.keyIdOf(stored), cipher.keyId)).pipe(
      sql.withTransaction,
      Effect.mapError((error) => error._tag === "PersistenceError" ? error : toPersistenceError(error))
    )
  })

/** Erases previous secrets whose grace period ended by `at` (D46); answers how many. */
export const erasePreviousSecrets = (at: DateTime.Utc) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE webhooks SET previous_secret = NULL, previous_secret_expires_at = NULL
        WHERE previous_secret_expires_at IS NOT NULL AND previous_secret_expires_at <= ${ts(at)} RETURNING id`
  )
    .pipe(Effect.map((rows) => rows.length), mapSqlError)

/** The ids of the keys stored values name, each once. */
const storedKeyIds = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  RowSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ kid: Schema.String }),
    execute: () =>
      sql`SELECT DISTINCT SUBSTR(secret, 4, 11) AS kid FROM webhooks WHERE secret LIKE 'v1:%'
          UNION SELECT DISTINCT SUBSTR(previous_secret, 4, 11) AS kid FROM webhooks WHERE previous_secret LIKE 'v1:%'`
  })(undefined))

/**
 * What storage does with stored secrets when it starts, after the migrations: refuse a key that does not decrypt
 * them (a `ConfigError` at start rather than a failure per delivery), encrypt the plain-text secrets earlier
 * versions wrote, and erase expired previous secrets.
 */
export const secretsAtStart: Effect.Effect<void, ConfigError.ConfigError, SqlClient.SqlClient | SecretCipher> = Effect
  .gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* SecretCipher
    const unknown = (yield* storedKeyIds.pipe(Effect.orDie)).map((r) => r.kid).filter((id) =>
      !cipher.keyIds.includes(id)
    )
    if (unknown.length > 0) {
      return yield* Effect.fail(invalid(
        `is key ${cipher.keyId}${cipher.keyIds.length > 1 ? ` (previous ${cipher.keyIds[1]})` : ""}, but webhook ` +
          `secrets in this database were encrypted with key ${unknown.join(", ")}. Set the key they were written ` +
          "with as SUPPORT_SECRET_KEY, or as SUPPORT_SECRET_KEY_PREVIOUS while rotating keys."
      ))
    }
    const encrypted = yield* rewrite((stored) => Option.isSome(cipher.keyIdOf(stored))).pipe(
      sql.withTransaction,
      Effect.orDie
    )
    if (encrypted > 0) yield* Effect.logInfo(`Encrypted the plain-text secrets of ${encrypted} webhooks`)
    yield* erasePreviousSecrets(yield* DateTime.now).pipe(Effect.orDie)
  })
