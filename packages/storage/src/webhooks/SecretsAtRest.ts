/**
 * Webhook secrets at rest: which key encrypts them, and what storage does with them at start.
 *
 * The key is `SUPPORT_SECRET_KEY`. Without it, a SQLite file database uses a key file next to it
 * (`<database file>.key`, mode 0600, made on first start), an in-memory database a random key for the process, and
 * PostgreSQL refuses to start: its data lives on a server that other machines share, so a key in a local file would
 * be lost with the machine or differ between processes. At start, storage encrypts the plain-text secrets earlier
 * versions wrote, refuses a key that does not decrypt what is stored, and erases expired previous secrets.
 */
import { PersistenceError, SecretCipher, SecretKeysConfig, webhookSecretContext } from "@support-engine/core"
import { parseSecretKey } from "@support-engine/core"
import { Config, DateTime, Effect, Layer, Option, Redacted, Result, Schema, SchemaIssue } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { makeAesGcmCipher } from "../shared/AesGcmCipher.js"
import { ts } from "../shared/Columns.js"
import type { DatabaseUrl } from "../shared/Database.js"
import { mapSqlError, toPersistenceError } from "../shared/SqlErrors.js"

const KEY = "SUPPORT_SECRET_KEY"

/** A configuration error at `SUPPORT_SECRET_KEY`; `message` follows the key's name. */
const invalid = (message: string) =>
  new Config.ConfigError(
    new Schema.SchemaError(
      new SchemaIssue.Pointer([KEY], new SchemaIssue.InvalidValue({ message: `${KEY} ${message}` }))
    )
  )

/** `SUPPORT_SECRET_KEY` is needed and not set; `message` says so in full. */
const missing = (message: string) =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([KEY], new SchemaIssue.MissingKey({ messageMissingKey: message })))
  )

/**
 * The key file of a SQLite database file: read it, or make it. Written whole to a private temporary file, then
 * linked into place, which fails if the name exists: two processes starting at once agree on one key, and neither
 * can read a half-written file.
 */
const keyFile = (path: string) =>
  Effect.gen(function*() {
    const made = yield* Effect.try({
      try: () => {
        const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
        writeFileSync(temporary, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" })
        try {
          linkSync(temporary, path)
        } finally {
          unlinkSync(temporary)
        }
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
    return yield* Result.match(parseSecretKey(text), {
      onFailure: (message) => Effect.fail(invalid(`not set, and the key file ${path} ${message}`)),
      onSuccess: (key) => Effect.succeed(Redacted.make(key))
    })
  })

/**
 * The cipher for the database `database` names; `undefined` for a client the host made, which needs the key set.
 * Fails with a `ConfigError` naming `SUPPORT_SECRET_KEY` when there is no usable key.
 */
export const secretCipherLayer = (
  database: DatabaseUrl | undefined
): Layer.Layer<SecretCipher, Config.ConfigError> =>
  Layer.effect(
    SecretCipher,
    Effect.gen(function*() {
      const keys = yield* SecretKeysConfig
      const current = Option.isSome(keys.current)
        ? keys.current.value
        : database === undefined
        ? yield* Effect.fail(missing(`${KEY} is required when storage runs on a host's client`))
        : database._tag === "Postgres"
        ? yield* Effect.fail(missing(
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

/**
 * Rewrites, under the current key, every stored value that does not start with `prefix` (plain text, or another
 * key's values). The statement only narrows the rows (`_` in a key id is a LIKE wildcard); `startsWith` decides.
 */
const rewrite = (prefix: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* SecretCipher
    const keep = (stored: string) => stored.startsWith(prefix)
    const pattern = `${prefix}%`
    const rows = yield* SqlSchema.findAll({
      Request: Schema.Void,
      Result: StoredSecrets,
      execute: () =>
        sql`SELECT id, secret, previous_secret FROM webhooks
            WHERE secret NOT LIKE ${pattern} OR previous_secret NOT LIKE ${pattern}`
    })(undefined)
    const again = (stored: string, id: string) =>
      keep(stored)
        ? Effect.succeed(stored)
        : Effect.map(
          Option.isSome(cipher.keyIdOf(stored))
            ? Effect.suspend(() => Effect.fromResult(cipher.decrypt(stored, webhookSecretContext(id))))
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
    return yield* rewrite(`v1:${cipher.keyId}:`).pipe(
      sql.withTransaction,
      Effect.mapError((error) => error._tag === "PersistenceError" ? error : toPersistenceError(error))
    )
  })

/** Erases previous secrets whose grace period ended by `at`; answers how many. */
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
  SqlSchema.findAll({
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
export const secretsAtStart: Effect.Effect<void, Config.ConfigError, SqlClient.SqlClient | SecretCipher> = Effect
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
    const encrypted = yield* rewrite("v1:").pipe(
      sql.withTransaction,
      Effect.orDie
    )
    if (encrypted > 0) yield* Effect.logInfo(`Encrypted the plain-text secrets of ${encrypted} webhooks`)
    yield* erasePreviousSecrets(yield* DateTime.now).pipe(Effect.orDie)
  })
