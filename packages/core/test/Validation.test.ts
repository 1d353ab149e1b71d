import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { decodeRequest } from "../src/shared/Validation.js"

const Request = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(3))),
  channel: Schema.optional(Schema.Literal("email", "chat")),
  ids: Schema.optional(Schema.Array(Schema.UUID)),
  nested: Schema.Struct({ count: Schema.Int })
})

describe("decodeRequest (D13)", () => {
  it.effect("keys are request field names, nested with dots; one tidy message list per field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        decodeRequest(Request)({
          name: "toolong",
          channel: "sms",
          ids: ["00000000-0000-7000-8000-000000000000", "nope"],
          nested: { count: "1" }
        })
      )
      assert.strictEqual(error.status, 422)
      assert.strictEqual(error.message, "The given data was invalid.")
      assert.deepStrictEqual(Object.keys(error.errors).sort(), ["channel", "ids.1", "name", "nested.count"])
      assert.deepStrictEqual(error.errors["channel"], ["Expected \"email\" | \"chat\", actual \"sms\""])
      for (const messages of Object.values(error.errors)) {
        assert.strictEqual(messages.length, 1)
        assert.isFalse(messages[0]!.startsWith("Expected undefined"))
      }
    }))

  it.effect("a missing required field and a non-object body", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(decodeRequest(Request)({}))
      assert.deepStrictEqual(Object.keys(missing.errors), ["nested"])
      const notObject = yield* Effect.flip(decodeRequest(Request)([1]))
      assert.deepStrictEqual(Object.keys(notObject.errors), ["body"])
    }))

  it.effect("unknown fields are ignored", () =>
    Effect.gen(function*() {
      const ok = yield* decodeRequest(Request)({ nested: { count: 1 }, extra: true })
      assert.deepStrictEqual(ok, { nested: { count: 1 } })
    }))
})
