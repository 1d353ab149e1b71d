/** The CLI's pure pieces: option names in validation errors, failure messages, where the data lives. */
import { assert, describe, it } from "@effect/vitest"
import { CreateApiToken, decodeRequest, NotFound, PersistenceError, ValidationError } from "@support-engine/core"
import { Config, ConfigProvider, Effect } from "effect"
import { HttpServerError } from "effect/http"
import { resolve } from "node:path"
import { describeDatabase } from "../src/CliConfig.js"
import { asOptions, renderFailure } from "../src/Output.js"

describe("asOptions", () => {
  it.effect("names request fields by the options typed, drops indexes, says a repeated message once", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        decodeRequest(CreateApiToken)({
          workspace_id: "x",
          name: "ok",
          abilities: ["root", "admin"],
          expires_at: "soon"
        })
      )
      const renamed = asOptions({ workspace_id: "--workspace", abilities: "--ability" })(error)
      assert.deepStrictEqual(Object.keys(renamed.errors).sort(), ["--ability", "--expires-at", "--workspace"])
      // A nullable field given a bad value names the rule the value broke, not the null it was not (issue 20).
      assert.deepStrictEqual(renamed.errors["--expires-at"], ["must be an RFC 3339 date-time"])
      assert.strictEqual(renamed.errors["--ability"]!.length, 1)
      assert.deepStrictEqual(renamed.errors["--workspace"], ["must be a UUID"])
    }))
})

describe("renderFailure", () => {
  it("lists a validation error's fields one per line", () => {
    const error = new ValidationError({ errors: { "--name": ["too long"], "--email": ["must be an email address"] } })
    assert.strictEqual(
      renderFailure(error),
      "Error: invalid input.\n  --name: too long\n  --email: must be an email address"
    )
  })

  it("prints an engine error's message, and a persistence error's reason for the operator", () => {
    assert.strictEqual(renderFailure(new NotFound({ resource: "Workspace" })), "Error: Workspace not found.")
    assert.strictEqual(
      renderFailure(new PersistenceError({ reason: "database is locked" })),
      "Error: the database failed: database is locked"
    )
  })

  it("says why the HTTP server could not listen", () => {
    const error = new HttpServerError.ServeError({ cause: new Error("listen EADDRINUSE: address already in use") })
    assert.strictEqual(
      renderFailure(error),
      "Error: the HTTP server could not start: listen EADDRINUSE: address already in use"
    )
  })

  it.effect("names the variable of a configuration error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Config.Port("SUPPORT_PORT").parse(ConfigProvider.fromEnv({ env: { SUPPORT_PORT: "eighty" } }))
      )
      const text = renderFailure(error)
      assert.include(text, "Error: invalid configuration")
      assert.include(text, "SUPPORT_PORT")
    }))
})

describe("describeDatabase", () => {
  it("shows the absolute SQLite file, memory, or the PostgreSQL URL without its password", () => {
    assert.strictEqual(describeDatabase("file:./data/support.db"), `${resolve("data/support.db")} (SQLite)`)
    assert.strictEqual(describeDatabase("file::memory:"), "in memory (SQLite; gone when the process exits)")
    assert.strictEqual(
      describeDatabase("postgres://support:s3cret@db.internal:5432/support"),
      "postgres://support:***@db.internal:5432/support (PostgreSQL)"
    )
    assert.strictEqual(
      describeDatabase("postgres://db.internal/support"),
      "postgres://db.internal/support (PostgreSQL)"
    )
  })
})
