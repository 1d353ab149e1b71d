import { assert, describe, it } from "@effect/vitest"
import {
  CreateApiToken,
  CreateCustomer,
  Customers,
  decodeCreateApiToken,
  Events,
  ListCustomers,
  ListEvents,
  Tokens,
  WorkspaceId
} from "@support-engine/core"
import { DateTime, Duration, Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** D9, D10: token issuing, authentication, expiry, revocation; abilities on the event log (D45). */
export const tokensSuite = (adapter: Adapter) =>
  describe(`Tokens (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("issues a token of the form <id>|<40 url-safe chars> that authenticates to its workspace (D9)", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "ci", abilities: ["external-api:read"] })
        )
        const plain = Redacted.value(issued.plain)
        assert.match(plain, /^[0-9a-f-]{36}\|[A-Za-z0-9_-]{40}$/)
        assert.strictEqual(plain.split("|")[0], issued.token.id)
        const principal = yield* tokens.authenticate(issued.plain)
        assert.strictEqual(principal.workspaceId, workspace.id)
        assert.deepStrictEqual(principal.abilities, ["external-api:read"])
        assert.deepStrictEqual(principal.actor.type, "api_token")
      }).pipe(provide))

    it.effect("lists a workspace's tokens oldest first, without values or hashes (issue 15 item 8: lost tokens)", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const other = yield* makeWorkspace()
        const tokens = yield* Tokens
        const before = yield* tokens.list(workspace.id)
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "lost", abilities: ["external-api:write"] })
        )
        yield* tokens.create(
          new CreateApiToken({ workspace_id: other.workspace.id, name: "elsewhere", abilities: ["external-api:read"] })
        )
        const listed = yield* tokens.list(workspace.id)
        assert.deepStrictEqual(listed.slice(before.length).map((t) => [t.id, t.name]), [[issued.token.id, "lost"]])
        assert.notInclude(JSON.stringify(listed), Redacted.value(issued.plain).split("|")[1]!)
        const missing = yield* Effect.flip(tokens.list(WorkspaceId.make("00000000-0000-7000-8000-000000000000")))
        assert.strictEqual(missing._tag, "NotFound")
      }).pipe(provide))

    it.effect("refuses unknown, malformed and tampered values alike (D9)", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "ci", abilities: ["external-api:write"] })
        )
        const plain = Redacted.value(issued.plain)
        const tampered = plain.slice(0, -1) + (plain.endsWith("A") ? "B" : "A")
        for (const value of ["", "nonsense", `${issued.token.id}|`, tampered, `x${plain}`]) {
          const error = yield* Effect.flip(tokens.authenticate(Redacted.make(value)))
          assert.strictEqual(error._tag, "Unauthenticated")
          assert.strictEqual(error.message, "Unauthenticated.")
        }
      }).pipe(provide))

    it.effect("a token stops working when it expires, under TestClock (D9)", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const expiresAt = DateTime.add(yield* DateTime.now, { hours: 1 })
        const issued = yield* tokens.create(
          new CreateApiToken({
            workspace_id: workspace.id,
            name: "ci",
            abilities: ["external-api:read"],
            expires_at: expiresAt
          })
        )
        yield* tokens.authenticate(issued.plain)
        yield* TestClock.adjust(Duration.minutes(59))
        yield* tokens.authenticate(issued.plain)
        yield* TestClock.adjust(Duration.minutes(1))
        const error = yield* Effect.flip(tokens.authenticate(issued.plain))
        assert.strictEqual(error._tag, "Unauthenticated")
      }).pipe(provide))

    it.effect("last_used_at is recorded on use, to the minute, without a write per request", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "ci", abilities: ["external-api:read"] })
        )
        assert.strictEqual((yield* tokens.get(issued.token.id)).last_used_at, null)
        yield* TestClock.adjust(Duration.seconds(10))
        yield* tokens.authenticate(issued.plain)
        assert.strictEqual((yield* tokens.get(issued.token.id)).last_used_at?.epochMilliseconds, 10_000)
        yield* TestClock.adjust(Duration.seconds(30))
        yield* tokens.authenticate(issued.plain)
        assert.strictEqual((yield* tokens.get(issued.token.id)).last_used_at?.epochMilliseconds, 10_000)
        yield* TestClock.adjust(Duration.seconds(30))
        yield* tokens.authenticate(issued.plain)
        assert.strictEqual((yield* tokens.get(issued.token.id)).last_used_at?.epochMilliseconds, 70_000)
      }).pipe(provide))

    it.effect("an expiry in the past is a validation error on expires_at", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        yield* TestClock.adjust(Duration.hours(2))
        const error = yield* Effect.flip((yield* Tokens).create(
          new CreateApiToken({
            workspace_id: workspace.id,
            name: "ci",
            abilities: ["external-api:read"],
            expires_at: DateTime.makeUnsafe(0)
          })
        ))
        assert.strictEqual(error._tag, "ValidationError")
        assert.deepStrictEqual(error._tag === "ValidationError" && Object.keys(error.errors), ["expires_at"])
      }).pipe(provide))

    it.effect("a revoked token is invalid (D9)", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "ci", abilities: ["external-api:read"] })
        )
        yield* tokens.revoke(issued.token.id)
        const error = yield* Effect.flip(tokens.authenticate(issued.plain))
        assert.strictEqual(error._tag, "Unauthenticated")
        const again = yield* Effect.flip(tokens.revoke(issued.token.id))
        assert.strictEqual(again._tag, "NotFound")
      }).pipe(provide))

    it.effect("the event log needs read; a read token may list it (D10, D45)", () =>
      Effect.gen(function*() {
        const events = yield* Events
        const read = yield* makeWorkspace(["external-api:read"])
        const page = yield* events.list(new ListEvents({})).pipe(as(read.principal))
        assert.strictEqual(page.meta.total, 0)
        const none = yield* makeWorkspace([])
        const error = yield* Effect.flip(events.list(new ListEvents({})).pipe(as(none.principal)))
        assert.strictEqual(error._tag, "InsufficientAbility")
        assert.strictEqual(error.message, "This token lacks the events:read (or external-api:read) ability.")
      }).pipe(provide))

    it.effect("D58: a resource's own abilities allow it in the Effect services, and only it; write includes read", () =>
      Effect.gen(function*() {
        const customers = yield* Customers
        const events = yield* Events
        const reader = yield* makeWorkspace(["customers:read", "events:read"])
        assert.strictEqual((yield* customers.list(new ListCustomers({})).pipe(as(reader.principal))).meta.total, 0)
        assert.strictEqual((yield* events.list(new ListEvents({})).pipe(as(reader.principal))).meta.total, 0)
        const denied = yield* Effect.flip(
          customers.create(new CreateCustomer({ email: "ada@example.test" })).pipe(as(reader.principal))
        )
        assert.strictEqual(denied._tag, "InsufficientAbility")
        assert.strictEqual(denied.message, "This token lacks the customers:write (or external-api:write) ability.")
        const writer = yield* makeWorkspace(["customers:write"])
        const created = yield* customers.create(new CreateCustomer({ email: "ada@example.test" })).pipe(
          as(writer.principal)
        )
        assert.strictEqual((yield* customers.get(created.id).pipe(as(writer.principal))).id, created.id)
        const noEvents = yield* Effect.flip(events.list(new ListEvents({})).pipe(as(writer.principal)))
        assert.strictEqual(noEvents.message, "This token lacks the events:read (or external-api:read) ability.")
      }).pipe(provide))

    it.effect("D58: a token carries several abilities; an unknown one is a 422 validation error", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const input = yield* decodeCreateApiToken({
          workspace_id: workspace.id,
          name: "sync",
          abilities: ["customers:read", "events:read"]
        })
        const issued = yield* tokens.create(input)
        assert.deepStrictEqual(issued.token.abilities, ["customers:read", "events:read"])
        const principal = yield* tokens.authenticate(issued.plain)
        assert.deepStrictEqual(principal.abilities, ["customers:read", "events:read"])
        const unknown = yield* Effect.flip(
          decodeCreateApiToken({ workspace_id: workspace.id, name: "x", abilities: ["customers:admin"] })
        )
        assert.strictEqual(unknown._tag, "ValidationError")
        assert.strictEqual(unknown.status, 422)
        assert.deepStrictEqual(Object.keys(unknown.errors), ["abilities.0"])
        const writeEvents = yield* Effect.flip(
          decodeCreateApiToken({ workspace_id: workspace.id, name: "x", abilities: ["events:write"] })
        )
        assert.strictEqual(writeEvents._tag, "ValidationError")
      }).pipe(provide))

    it.effect("D58: the calling token shows itself, whatever its abilities", () =>
      Effect.gen(function*() {
        const { workspace } = yield* makeWorkspace()
        const tokens = yield* Tokens
        const issued = yield* tokens.create(
          new CreateApiToken({ workspace_id: workspace.id, name: "mirror", abilities: ["events:read"] })
        )
        const principal = yield* tokens.authenticate(issued.plain)
        const shown = yield* tokens.current().pipe(as(principal))
        assert.strictEqual(shown.id, issued.token.id)
        assert.strictEqual(shown.name, "mirror")
        assert.deepStrictEqual(shown.abilities, ["events:read"])
        assert.isNotNull(shown.last_used_at)
      }).pipe(provide))
  })
