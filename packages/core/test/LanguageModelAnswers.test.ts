/**
 * The AnswerModel on an `effect/ai` LanguageModel (D53), over a scripted in-process LanguageModel that keeps the
 * prompt it was given: the conversation so far becomes user and assistant messages, the agent's settings and the
 * passages the system message, phrases to avoid are named on a second draft, and the classification's number picks
 * the rule. (The HTTP providers are tested against loopback servers in storage's AiProviders.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Agent,
  AgentId,
  Citation,
  EscalationRule,
  EscalationRuleId,
  type ModelFailed,
  type Passage,
  UserId
} from "@support-engine/core"
import { languageModelAnswers } from "@support-engine/core/LanguageModelAnswers"
import { DateTime, Effect, Option, Stream } from "effect"
import { AiError, LanguageModel, type Prompt } from "effect/ai"

const at = DateTime.makeUnsafe(0)
const rule = (n: number, text: string) =>
  new EscalationRule({
    id: EscalationRuleId.make(`00000000-0000-7000-8000-00000000000${n}`),
    channel: "chat",
    rule: text,
    escalate_to: UserId.make("00000000-0000-7000-8000-0000000000aa"),
    created_at: at,
    updated_at: at
  })

const agent = new Agent({
  id: AgentId.make("00000000-0000-7000-8000-000000000001"),
  name: "Ada",
  slug: "ada",
  description: "Helps with orders.",
  avatar_url: null,
  max_messages_per_session: 10,
  tone: "formal",
  response_length: "short",
  is_active: true,
  is_copilot: false,
  auto_reply: false,
  model: "model-of-the-agent",
  prohibited_phrases: [],
  escalation_rules: [],
  created_at: at,
  updated_at: at
})

const passage: Passage = {
  citation: new Citation({
    type: "kb_article",
    id: "00000000-0000-7000-8000-0000000000bb",
    title: "Shipping",
    url: null
  }),
  locale: "en",
  text: "We ship worldwide."
}

/** A model source whose one LanguageModel answers `reply` and records each prompt with the model it was made for. */
const scripted = (reply: (options: LanguageModel.ProviderOptions) => Effect.Effect<string, AiError.AiError>) => {
  const calls: Array<{ readonly model: string; readonly prompt: Prompt.Prompt; readonly json: boolean }> = []
  const source = {
    provider: "scripted",
    defaultModel: "the-default",
    languageModel: (model: string) =>
      LanguageModel.make({
        generateText: (options) =>
          Effect.map(reply(options), (text) => {
            calls.push({ model, prompt: options.prompt, json: options.responseFormat.type === "json" })
            return [
              { type: "text" as const, text },
              {
                type: "finish" as const,
                reason: "stop" as const,
                usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
              }
            ]
          }),
        streamText: () => Stream.empty
      })
  }
  return { calls, model: languageModelAnswers(source) }
}

const textOf = (message: Prompt.Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.map((part) => ("text" in part ? part.text : "")).join("")

describe("languageModelAnswers (D53)", () => {
  it.effect("the prompt: agent settings and passages in the system message, then the conversation, then the question", () =>
    Effect.gen(function*() {
      const { calls, model } = scripted(() => Effect.succeed("  We do.  "))
      const answer = yield* model.answer({
        agent,
        history: [{ role: "customer", content: "Hello" }, { role: "agent", content: "Hi, how can I help?" }],
        question: "Do you ship abroad?",
        passages: [passage],
        avoid: ["guarantee"]
      })
      assert.strictEqual(answer, "We do.")
      const [call] = calls
      assert.strictEqual(call!.model, "model-of-the-agent")
      assert.isFalse(call!.json)
      const messages = call!.prompt.content
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user"])
      const system = textOf(messages[0]!)
      for (
        const part of ["You are Ada", "Helps with orders.", "Tone: formal.", "at most 200 characters", "[1] Shipping"]
      ) {
        assert.include(system, part)
      }
      assert.include(system, "We ship worldwide.")
      assert.include(system, "\"guarantee\"")
      assert.deepStrictEqual(messages.slice(1).map(textOf), ["Hello", "Hi, how can I help?", "Do you ship abroad?"])
    }))

  it.effect("D61: the customer's locale is named in the answer's prompt; a summary is one generation", () =>
    Effect.gen(function*() {
      const { calls, model } = scripted(() => Effect.succeed(" Asked about shipping; answered. "))
      yield* model.answer({
        agent,
        history: [],
        question: "Livrez-vous ?",
        passages: [passage],
        avoid: [],
        locale: "fr"
      })
      assert.include(textOf(calls[0]!.prompt.content[0]!), "the locale \"fr\"")
      const summary = yield* model.summarize!({
        agent,
        transcript: [{ role: "customer", content: "Do you ship abroad?" }, { role: "agent", content: "Yes." }],
        maxLength: 1000,
        avoid: ["guarantee"],
        locale: "de"
      })
      assert.strictEqual(summary, "Asked about shipping; answered.")
      const messages = calls[1]!.prompt.content
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user"])
      for (const part of ["at most 1000 characters", "the locale \"de\"", "still open", "\"guarantee\""]) {
        assert.include(textOf(messages[0]!), part)
      }
      assert.strictEqual(textOf(messages[1]!), "Customer: Do you ship abroad?\n\nSupport: Yes.")
    }))

  it.effect("classification: the rule the model numbers, none for null or a number out of range", () =>
    Effect.gen(function*() {
      const rules = [rule(1, "asks for a refund"), rule(2, "is angry")]
      let answer = "{\"rule\":2}"
      const { calls, model } = scripted(() => Effect.succeed(answer))
      const matched = yield* model.matchRule("I am furious", rules, agent)
      assert.deepStrictEqual(Option.map(matched, (r) => r.id), Option.some(rules[1]!.id))
      assert.isTrue(calls[0]!.json)
      assert.include(textOf(calls[0]!.prompt.content[0]!), "2. is angry")
      answer = "{\"rule\":null}"
      assert.isTrue(Option.isNone(yield* model.matchRule("Hello", rules, agent)))
      answer = "{\"rule\":7}"
      assert.isTrue(Option.isNone(yield* model.matchRule("Hello", rules)))
      assert.strictEqual(calls[2]!.model, "the-default", "without an agent, the provider's default model")
    }))

  it.effect("provider errors become ModelFailed without the request: retryable for 429 and 5xx, not for 401", () =>
    Effect.gen(function*() {
      const failWith = (status: number) =>
        scripted(() =>
          Effect.fail(
            AiError.make({
              module: "Test",
              method: "generateText",
              reason: AiError.reasonFromHttpStatus({
                status,
                http: {
                  response: { status, headers: { "x-echoed-authorization": "Bearer sk-secret-key" } },
                  body: "Incorrect API key provided: sk-secret-key"
                },
                description: "Incorrect API key provided: sk-secret-key"
              })
            })
          )
        ).model
      const request = { agent, history: [], question: "q", passages: [passage], avoid: [] }
      const failures: Array<ModelFailed> = []
      for (const status of [401, 429, 503]) failures.push(yield* Effect.flip(failWith(status).answer(request)))
      assert.deepStrictEqual(failures.map((f) => f.retryable), [false, true, true])
      assert.strictEqual(failures[0]!.message, "scripted answered 401 (StatusCode)")
      for (const failure of failures) assert.notInclude(JSON.stringify(failure), "sk-secret-key")
    }))
})
