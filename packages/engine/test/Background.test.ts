/** The engine's layer starts the background work its options ask for, and none when told `backgroundWork: false`. */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { type ConversationId, ListMessages, Messages } from "@support-engine/core"
import { Effect, Exit, Layer, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { supportEngineLayer, type SupportEngineOptions } from "../src/index.js"
import { as, fixture, REFUNDS } from "./Fixture.js"

const dir = mkdtempSync(join(tmpdir(), "support-engine-background-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Builds the engine in its own scope, so the test can stop it and open another on the same file. */
const open = (options: SupportEngineOptions) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      supportEngineLayer({ trainingWorker: false, dispatcher: false, ...options }).pipe(Layer.orDie),
      scope
    )
    return { scope, run: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, context) }
  })

const agentReplies = (conversationId: ConversationId) =>
  Effect.flatMap(Messages, (m) => m.list(new ListMessages({ conversation_id: conversationId, per_page: 100 }))).pipe(
    Effect.map((page) => page.data.filter((msg) => msg.sender_type === "agent").map((msg) => msg.content))
  )

describe("supportEngineLayer's background work", () => {
  const cases: ReadonlyArray<readonly [string, SupportEngineOptions, boolean]> = [
    ["by default", {}, true],
    ["replyWorker: false", { replyWorker: false }, false],
    ["backgroundWork: false", { backgroundWork: false }, false]
  ]
  for (const [name, options, replies] of cases) {
    it.effect(`runs the reply worker ${replies ? "" : "not "}${name} (D3, D53)`, () =>
      Effect.gen(function*() {
        const engine = yield* open({ ...options, databaseUrl: `file:${join(dir, `${name.replace(/\W/g, "-")}.db`)}` })
        const f = yield* engine.run(fixture())
        yield* f.say("How long do refunds take?")
        const read = engine.run(agentReplies(f.conversation.id).pipe(as(f.principal)))
        // The worker is woken by the message: no clock to move, only turns to give it while it reads and writes.
        let seen: ReadonlyArray<string> = []
        for (let turn = 0; turn < 200 && seen.length === 0; turn++) {
          yield* Effect.yieldNow
          seen = yield* read
        }
        assert.deepStrictEqual(seen, replies ? [REFUNDS] : [])
        yield* Scope.close(engine.scope, Exit.void)
      }))
  }
})
