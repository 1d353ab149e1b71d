/**
 * Remote model providers (D53) against loopback servers that speak their protocols: OpenAI's
 * Responses API and Anthropic's Messages API. The whole ask pipeline runs (retrieval on SQLite, the prompt, the
 * provider's HTTP call, retries); the servers record what arrived and answer by script. Time-outs and back-off
 * run on the TestClock; only the HTTP exchange itself is real I/O on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AgentAsk,
  Agents,
  AnswerModel,
  AskAgent,
  CreateAgent,
  CreateArticle,
  CreateUser,
  EngineLive,
  type EngineService,
  KnowledgeBase,
  TranslationInput,
  UpdateArticle,
  Users
} from "@support-engine/core"
import { StorageLive, type StoragePorts } from "@support-engine/storage"
import { ConfigProvider, Duration, Effect, Fiber, Layer, Logger, References, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { AnswerModelLive } from "../src/ai/AnswerModelLive.js"
import { as, fixture as replyFixture, makeWorkspace, REFUNDS } from "./Fixture.js"
import { anthropicMessage, openAiResponse, providerStub, type Recorded, type Script } from "./ProviderStub.js"

const OPENAI_KEY = "sk-test-openai-0123456789abcdef"
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
const PASSAGE = "We ship worldwide within five days."

type TestEngine = EngineService | StoragePorts | SqlClient.SqlClient

/** Every log line of a test, with its annotations and cause, to check that no key is in them. */
const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ cause, fiber, message }) => {
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    lines.push(JSON.stringify({ message, annotations, cause: String(cause) }))
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** The engine (in-memory SQLite) with `env` as its whole configuration. */
const withEngine = <A, E>(env: Record<string, string>, program: Effect.Effect<A, E, TestEngine | Scope.Scope>) =>
  program.pipe(
    Effect.provide(EngineLive.pipe(Layer.provideMerge(Layer.merge(StorageLive("file::memory:"), AnswerModelLive)))),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))
  )

/** A workspace with an agent, a user its email rule escalates to, and one published article. */
const fixture = Effect.gen(function*() {
  const { principal, workspace } = yield* makeWorkspace()
  const user = yield* (yield* Users).create(
    new CreateUser({ workspace_id: workspace.id, name: "Sam", email: "s@x.io" })
  )
  const agent = yield* (yield* Agents).create(
    new CreateAgent({
      name: "Ada",
      description: "Helps Acme's customers with orders.",
      tone: "warm",
      response_length: "short",
      escalation_rules: [{ channel: "email", rule: "the customer asks for a refund", escalate_to: user.id }]
    })
  ).pipe(as(principal))
  const kb = yield* KnowledgeBase
  const article = yield* kb.create(
    new CreateArticle({ translations: [new TranslationInput({ locale: "en", title: "Shipping", content: PASSAGE })] })
  ).pipe(as(principal))
  yield* kb.update(article.id, new UpdateArticle({ status: "published" })).pipe(as(principal))
  const ask = (question: string, channel: "chat" | "email" = "chat") =>
    Effect.flatMap(AgentAsk, (service) => service.ask(agent.id, new AskAgent({ question, channel }))).pipe(
      as(principal),
      Effect.orDie
    )
  return { agent, article, user, ask }
}).pipe(Effect.orDie)

/**
 * Moves the TestClock a step at a time, letting the real HTTP exchange run in between, until `done` holds: the
 * timeout and the back-off sleeps wake on the TestClock, the requests complete in real time.
 */
const driveUntil = <E, R>(done: Effect.Effect<boolean, E, R>, step: Duration.Input) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      if (yield* done) return
      yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
      if (yield* done) return
      yield* TestClock.adjust(step)
    }
    return yield* Effect.die(new Error("the pipeline did not reach the expected state"))
  })

const openAiEnv = (origin: string): Record<string, string> => ({
  SUPPORT_AI_PROVIDER: "openai",
  SUPPORT_OPENAI_API_KEY: OPENAI_KEY,
  SUPPORT_OPENAI_BASE_URL: `${origin}/v1`,
  SUPPORT_DEFAULT_AGENT_MODEL: "gpt-test-1"
})

const anthropicEnv = (origin: string): Record<string, string> => ({
  SUPPORT_AI_PROVIDER: "anthropic",
  SUPPORT_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
  SUPPORT_ANTHROPIC_BASE_URL: origin,
  SUPPORT_DEFAULT_AGENT_MODEL: "claude-test-1"
})

const bodyText = (r: Recorded) => JSON.stringify(r.body)

describe("Remote AI providers on loopback (D53)", () => {
  it.effect("openai: the Responses API gets the model, the key and a prompt with the passages; its text is the answer", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const stub = yield* providerStub(() => ({ status: 200, body: openAiResponse("Yes, to every country.") }))
      yield* withEngine(
        openAiEnv(stub.origin),
        Effect.gen(function*() {
          const { article, ask } = yield* fixture
          const answered = yield* ask("Do you ship worldwide?")
          assert.strictEqual(answered.answer, "Yes, to every country.")
          assert.deepStrictEqual(answered.citations.map((c) => c.id), [article.id])
          assert.isNull(answered.escalation)
        })
      ).pipe(Effect.provide(logs.layer), Effect.provideService(References.MinimumLogLevel, "All"))
      const [request, ...more] = yield* stub.received
      assert.strictEqual(more.length, 0, "no classification call: the chat channel has no rules")
      assert.deepStrictEqual([request!.method, request!.path], ["POST", "/v1/responses"])
      assert.strictEqual(request!.headers.authorization, `Bearer ${OPENAI_KEY}`)
      assert.isUndefined(request!.headers.traceparent, "no trace headers to the provider")
      assert.strictEqual(request!.body.model, "gpt-test-1")
      for (const part of [PASSAGE, "Do you ship worldwide?", "Helps Acme's customers with orders.", "Tone: warm."]) {
        assert.include(bodyText(request!), part)
      }
      assert.isFalse(logs.lines.some((line) => line.includes(OPENAI_KEY)))
    }))

  it.effect("openai: an escalation rule is matched by a structured (JSON schema) classification call", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub(() => ({ status: 200, body: openAiResponse(JSON.stringify({ rule: 1 })) }))
      yield* withEngine(
        openAiEnv(stub.origin),
        Effect.gen(function*() {
          const { agent, ask, user } = yield* fixture
          const answered = yield* ask("I want my money back", "email")
          assert.isNull(answered.answer)
          assert.deepStrictEqual(answered.escalation && { ...answered.escalation }, {
            reason: "escalation_rule",
            rule_id: agent.escalation_rules[0]!.id,
            escalate_to: user.id
          })
        })
      )
      const [request] = yield* stub.received
      const format = (request!.body.text as { format: { type: string; schema: unknown } }).format
      assert.strictEqual(format.type, "json_schema")
      assert.include(JSON.stringify(format.schema), "rule")
      assert.include(bodyText(request!), "the customer asks for a refund")
      assert.include(bodyText(request!), "I want my money back")
    }))

  it.effect("anthropic: the Messages API gets x-api-key, the version and the passages; a tool call classifies", () =>
    Effect.gen(function*() {
      const script: Script = (_, request) =>
        request.body.tool_choice === undefined
          ? { status: 200, body: anthropicMessage([{ type: "text", text: "We do, within five days." }]) }
          : {
            status: 200,
            body: anthropicMessage([{ type: "tool_use", id: "toolu_1", name: "escalation", input: { rule: null } }])
          }
      const stub = yield* providerStub(script)
      yield* withEngine(
        anthropicEnv(stub.origin),
        Effect.gen(function*() {
          const { ask } = yield* fixture
          const answered = yield* ask("Do you ship worldwide?", "email")
          assert.strictEqual(answered.answer, "We do, within five days.")
          assert.isNull(answered.escalation)
        })
      )
      const [classify, answer] = yield* stub.received
      for (const request of [classify!, answer!]) {
        assert.deepStrictEqual([request.method, request.path.split("?")[0]], ["POST", "/v1/messages"])
        assert.strictEqual(request.headers["x-api-key"], ANTHROPIC_KEY)
        assert.isString(request.headers["anthropic-version"])
        assert.strictEqual(request.body.model, "claude-test-1")
      }
      assert.deepInclude(classify!.body.tool_choice, { type: "tool", name: "escalation" })
      assert.include(bodyText(answer!), PASSAGE)
      assert.include(bodyText(answer!), "Do you ship worldwide?")
    }))

  it.effect("a 500 is retried with back-off (TestClock), then the agent hands off with model_error", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub(() => ({ status: 500, body: { error: { message: "overloaded" } } }))
      yield* withEngine(
        openAiEnv(stub.origin),
        Effect.gen(function*() {
          const { ask } = yield* fixture
          const fiber = yield* Effect.forkChild(ask("Do you ship worldwide?"))
          yield* driveUntil(Effect.sync(() => fiber.pollUnsafe() !== undefined), Duration.millis(500))
          const answered = yield* Fiber.join(fiber)
          assert.deepStrictEqual(answered.escalation && answered.escalation.reason, "model_error")
        })
      )
      assert.strictEqual((yield* stub.received).length, 3, "the first call and two retries")
    }))

  it.effect("a 401 is not retried; the key is in no error or log, even when the provider's body echoes it", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const stub = yield* providerStub(() => ({
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}`, type: "invalid_request_error" } }
      }))
      yield* withEngine(
        openAiEnv(stub.origin),
        Effect.gen(function*() {
          const { agent, ask } = yield* fixture
          const answered = yield* ask("Do you ship worldwide?")
          assert.strictEqual(answered.escalation?.reason, "model_error")
          const model = yield* AnswerModel
          const failure = yield* Effect.flip(model.answer({
            agent,
            history: [],
            question: "Do you ship worldwide?",
            passages: [],
            avoid: []
          }))
          assert.strictEqual(failure.message, "openai answered 401 (StatusCode)")
          assert.isFalse(failure.retryable)
          assert.notInclude(JSON.stringify(failure), OPENAI_KEY)
          assert.notInclude(String(failure), OPENAI_KEY)
        })
      ).pipe(Effect.provide(logs.layer), Effect.provideService(References.MinimumLogLevel, "All"))
      assert.strictEqual((yield* stub.received).length, 2, "one call from ask, one from the direct call")
      assert.isTrue(logs.lines.some((line) => line.includes("openai answered 401")), "the failure is logged")
      assert.isFalse(logs.lines.some((line) => line.includes(OPENAI_KEY)))
    }))

  it.effect("a provider that never answers times out (30 s on the TestClock) three times, then model_error", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub(() => "hang")
      yield* withEngine(
        anthropicEnv(stub.origin),
        Effect.gen(function*() {
          const { ask } = yield* fixture
          const fiber = yield* Effect.forkChild(ask("Do you ship worldwide?"))
          yield* driveUntil(Effect.sync(() => fiber.pollUnsafe() !== undefined), Duration.seconds(1))
          const answered = yield* Fiber.join(fiber)
          assert.strictEqual(answered.escalation?.reason, "model_error")
        })
      )
      assert.strictEqual((yield* stub.received).length, 3)
    }))

  it.effect("the reply loop with openai: each reply is the provider's text; the next request carries the conversation", () =>
    Effect.gen(function*() {
      const stub = yield* providerStub((n) => ({ status: 200, body: openAiResponse(`Answer ${n}.`) }))
      yield* withEngine(
        openAiEnv(stub.origin),
        Effect.gen(function*() {
          const f = yield* replyFixture()
          yield* f.say("How long do refunds take?")
          yield* f.answer
          yield* f.say("And refunds of gifts?")
          yield* f.answer
          const thread = yield* f.thread
          assert.deepStrictEqual(thread.map((m) => [m.sender_type, m.content]), [
            ["customer", "How long do refunds take?"],
            ["agent", "Answer 1."],
            ["customer", "And refunds of gifts?"],
            ["agent", "Answer 2."]
          ])
          assert.deepStrictEqual(thread[3]!.citations.map((c) => c.id), [f.item.id])
        })
      )
      const [, second] = yield* stub.received
      const text = bodyText(second!)
      const order = ["How long do refunds take?", "Answer 1.", "And refunds of gifts?"].map((part) =>
        text.indexOf(part)
      )
      assert.isTrue(order.every((at, i) => at > (i === 0 ? -1 : order[i - 1]!)), `history in order: ${order}`)
      assert.include(text, REFUNDS)
    }))

  it.effect("configuration: a remote provider without its key, or with a bad base URL, fails at start", () =>
    Effect.gen(function*() {
      const start = (env: Record<string, string>) => Effect.map(Effect.flip(withEngine(env, Effect.void)), String)
      const noKey = yield* start({ SUPPORT_AI_PROVIDER: "anthropic" })
      assert.include(noKey, "SUPPORT_ANTHROPIC_API_KEY")
      assert.include(noKey, "required when SUPPORT_AI_PROVIDER is anthropic")
      const badUrl = yield* start({ ...openAiEnv("http://127.0.0.1:1"), SUPPORT_OPENAI_BASE_URL: "localhost:1/v1" })
      assert.include(badUrl, "SUPPORT_OPENAI_BASE_URL")
      const unknown = yield* start({ SUPPORT_AI_PROVIDER: "gemini" })
      assert.include(unknown, "SUPPORT_AI_PROVIDER")
    }))
})
