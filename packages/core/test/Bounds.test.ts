/** D48/D49: the bounds and storable-string rules of request schemas, decided in core for every face of the engine. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { CreateConversation, CreateMessage, CreateWebhook, UpdateAgent } from "../src/index.js"
import { MAX_PAGE, PageNumber, PerPage } from "../src/shared/Pagination.js"
import { decodeRequest } from "../src/shared/Validation.js"

const CUSTOMER = "00000000-0000-7000-8000-000000000001"

const fieldsOf = <A, I>(schema: Schema.Codec<A, I>, input: unknown) =>
  Effect.map(Effect.flip(decodeRequest(schema)(input)), (error) => Object.keys(error.errors))

describe("request bounds (D48)", () => {
  it.effect("arrays over their bound are a 422 naming the field; at the bound they pass", () =>
    Effect.gen(function*() {
      const many = (n: number, f: (i: number) => unknown) => Array.from({ length: n }, (_, i) => f(i))
      assert.deepStrictEqual(
        yield* fieldsOf(CreateConversation, { customer_id: CUSTOMER, tags: many(101, (i) => `t${i}`) }),
        ["tags"]
      )
      yield* decodeRequest(CreateConversation)({ customer_id: CUSTOMER, tags: many(100, (i) => `t${i}`) })
      assert.deepStrictEqual(
        yield* fieldsOf(CreateMessage, { sender_type: "customer", content: "x", cc: many(101, () => "a@b.co") }),
        ["cc"]
      )
      assert.deepStrictEqual(
        yield* fieldsOf(UpdateAgent, {
          prohibited_phrases: many(101, () => ({ phrase: "p" })),
          escalation_rules: many(51, () => ({ channel: "email", rule: "r", escalate_to: CUSTOMER }))
        }),
        ["prohibited_phrases", "escalation_rules"]
      )
      assert.deepStrictEqual(
        yield* fieldsOf(UpdateAgent, {
          prohibited_phrases: [{ phrase: "p".repeat(501) }],
          escalation_rules: [{ channel: "email", rule: "r".repeat(1001), escalate_to: CUSTOMER }]
        }),
        ["prohibited_phrases.0.phrase", "escalation_rules.0.rule"]
      )
      assert.deepStrictEqual(
        yield* fieldsOf(CreateWebhook, { url: "https://hooks.example.com/", events: many(101, () => "*") }),
        ["events"]
      )
    }))

  it.effect("NUL and lone surrogates are a 422 naming the field; a surrogate pair (an emoji) passes", () =>
    Effect.gen(function*() {
      for (const bad of ["a\u0000b", "\uD800", "x\uDC00y", "\uDE00\uD83D"]) {
        assert.deepStrictEqual(yield* fieldsOf(CreateConversation, { customer_id: CUSTOMER, subject: bad }), [
          "subject"
        ])
        assert.deepStrictEqual(
          yield* fieldsOf(CreateConversation, { customer_id: CUSTOMER, tags: ["ok", bad] }),
          ["tags.1"]
        )
      }
      const ok = yield* decodeRequest(CreateConversation)({ customer_id: CUSTOMER, subject: "hi \uD83D\uDE00" })
      assert.strictEqual(ok.subject, "hi 😀")
    }))
})

describe("query numbers (D49)", () => {
  const page = Schema.decodeUnknownResult(PageNumber)
  const perPage = Schema.decodeUnknownResult(PerPage)

  it("are decimal digits only, page 1..1,000,000 and per_page 1..100", () => {
    for (const bad of ["0x10", "1e1", "+5", "5.0", "-1", "0", " 5", "5 ", "", "1e15", "1000001", "99999999999999999"]) {
      assert.isTrue(Result.isFailure(page(bad)), `page=${bad}`)
    }
    for (const bad of ["0", "101", "0x10", "1e1", "5.0"]) {
      assert.isTrue(Result.isFailure(perPage(bad)), `per_page=${bad}`)
    }
    assert.deepStrictEqual(page("007"), Result.succeed(7))
    assert.deepStrictEqual(page(String(MAX_PAGE)), Result.succeed(MAX_PAGE))
    assert.deepStrictEqual(perPage("100"), Result.succeed(100))
  })
})
