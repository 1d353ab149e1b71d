import { assert, describe, it } from "@effect/vitest"
import { Effect, Predicate, Schema } from "effect"
import {
  CreateAgent,
  CreateApiToken,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateWebhook,
  UpdateAgent,
  UpdateTrainingData,
  Uuid,
  withoutUndefinedKeys
} from "../src/index.js"
import * as Model from "../src/shared/Model.js"
import { NullableTimestamp, Timestamp } from "../src/shared/Timestamp.js"
import { BoundedString, decodeRequest, Email, fieldErrors, HttpUrl } from "../src/shared/Validation.js"

const UUID = Schema.String.check(Schema.isUUID())
const UUID_V7 = "01890a5d-ac96-774b-bcce-b302099a8057"

const Request = Schema.Struct({
  name: Schema.optional(Schema.String.check(Schema.isMaxLength(3))),
  channel: Schema.optional(Schema.Literals(["email", "chat"])),
  ids: Schema.optional(Schema.Array(UUID)),
  nested: Schema.Struct({ count: Schema.Int })
})

const SECRET = "whsec_do-not-print-me-9f8e7d6c5b4a"

/** The field errors of decoding `input` with `schema` (D13). */
const errorsOf = <A, I>(schema: Schema.Codec<A, I>, input: unknown) =>
  Effect.map(Effect.flip(decodeRequest(schema)(input)), (error) => error.errors)

/** The messages of one field given one value. */
const messagesOf = <A, I>(field: Schema.Codec<A, I>, value: unknown) =>
  Effect.map(errorsOf(Schema.Struct({ field }), { field: value }), (errors) => errors["field"])

describe("decodeRequest (D13)", () => {
  it.effect("keys are request field names, nested with dots; one message list per field", () =>
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
      assert.deepStrictEqual(error.errors, {
        name: ["must be at most 3 characters"],
        channel: ["must be one of: email, chat"],
        "ids.1": ["must be a UUID"],
        "nested.count": ["must be an integer"]
      })
    }))

  it.effect("a missing required field is required; a body that is no object is keyed body", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* errorsOf(Request, {}), { nested: ["is required"] })
      assert.deepStrictEqual(yield* errorsOf(Request, { nested: {} }), { "nested.count": ["is required"] })
      assert.deepStrictEqual(yield* errorsOf(Request, [1]), { body: ["must be an object"] })
      assert.deepStrictEqual(yield* errorsOf(Request, null), { body: ["must be an object"] })
    }))

  it.effect("unknown fields are ignored", () =>
    Effect.gen(function*() {
      const ok = yield* decodeRequest(Request)({ nested: { count: 1 }, extra: true })
      assert.deepStrictEqual(ok, { nested: { count: 1 } })
    }))
})

describe("plain validation messages (issue 20): one per kind of rule, never the value", () => {
  it.effect("string lengths, with thousands separated", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* messagesOf(BoundedString(2048), "x".repeat(2049)), [
        "must be at most 2,048 characters"
      ])
      assert.deepStrictEqual(yield* messagesOf(BoundedString(1), "xy"), ["must be at most 1 character"])
      assert.deepStrictEqual(yield* messagesOf(Schema.String.check(Schema.isMinLength(1)), ""), ["must not be empty"])
      assert.deepStrictEqual(yield* messagesOf(Schema.String.check(Schema.isMinLength(8)), "abc"), [
        "must be at least 8 characters"
      ])
    }))

  it.effect("number ranges and integers", () =>
    Effect.gen(function*() {
      const Size = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))
      assert.deepStrictEqual(yield* messagesOf(Size, 5000), ["must be between 1 and 1,000"])
      assert.deepStrictEqual(yield* messagesOf(Size, 1.5), ["must be an integer"])
      assert.deepStrictEqual(yield* messagesOf(Size, "10"), ["must be an integer"])
      assert.deepStrictEqual(yield* messagesOf(Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)), -1), [
        "must be at least 0"
      ])
      assert.deepStrictEqual(yield* messagesOf(Schema.NumberFromString.check(Schema.isInt()), "abc"), [
        "must be an integer"
      ])
    }))

  it.effect("literals and enums list the accepted values", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* messagesOf(Schema.Literals(["email", "chat"]), "sms"), [
        "must be one of: email, chat"
      ])
      assert.deepStrictEqual(yield* messagesOf(Schema.Literal("email"), "sms"), ["must be email"])
      const Optional = Schema.Struct({ field: Schema.optional(Schema.Literals(["a", "b"])) })
      assert.deepStrictEqual(yield* errorsOf(Optional, { field: 5 }), { field: ["must be one of: a, b"] })
    }))

  it.effect("type mismatches: booleans, strings, numbers, objects, arrays", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* messagesOf(Schema.Boolean, "true"), ["must be a boolean"])
      assert.deepStrictEqual(yield* messagesOf(Schema.String, 5), ["must be a string"])
      assert.deepStrictEqual(yield* messagesOf(Schema.Number, "5"), ["must be a number"])
      assert.deepStrictEqual(yield* messagesOf(Schema.Struct({ a: Schema.String }), []), ["must be an object"])
      assert.deepStrictEqual(yield* messagesOf(Schema.Array(Schema.String), "x"), ["must be an array"])
    }))

  it.effect("null unions: the rule of the member the value matched, else the accepted types", () =>
    Effect.gen(function*() {
      const Url = Schema.Struct({ field: Schema.optional(Schema.NullOr(BoundedString(2048))) })
      assert.deepStrictEqual(yield* errorsOf(Url, { field: 5 }), { field: ["must be null or a string"] })
      assert.deepStrictEqual(yield* errorsOf(Url, { field: "x".repeat(3000) }), {
        field: ["must be at most 2,048 characters"]
      })
      assert.deepStrictEqual(yield* messagesOf(Schema.NullOr(Schema.Literals(["email", "chat"])), 1), [
        "must be null or one of: email, chat"
      ])
      assert.deepStrictEqual(yield* messagesOf(Schema.NullOr(HttpUrl), "ftp://x"), [
        "must be an absolute http(s) URL"
      ])
    }))

  it.effect("date-times and UUIDs", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* messagesOf(Timestamp, "not a date"), ["must be an RFC 3339 date-time"])
      assert.deepStrictEqual(yield* messagesOf(Schema.NullOr(Timestamp), 5), ["must be null or an RFC 3339 date-time"])
      // The models' nullable timestamps list null first; the message is the same.
      assert.deepStrictEqual(yield* messagesOf(NullableTimestamp, 5), ["must be null or an RFC 3339 date-time"])
      assert.deepStrictEqual(yield* messagesOf(NullableTimestamp, "soon"), ["must be an RFC 3339 date-time"])
      assert.deepStrictEqual(yield* messagesOf(UUID, "nope"), ["must be a UUID"])
    }))

  it.effect("arrays: item bounds at the array, item errors at their index", () =>
    Effect.gen(function*() {
      const Ids = Schema.Array(UUID).check(Schema.isMaxLength(2))
      assert.deepStrictEqual(yield* messagesOf(Ids, ["a", "b", "c"].map(() => crypto.randomUUID())), [
        "must have at most 2 items"
      ])
      assert.deepStrictEqual(yield* errorsOf(Schema.Struct({ agent_ids: Schema.optional(Ids) }), { agent_ids: [1] }), {
        "agent_ids.0": ["must be a UUID"]
      })
      const NonEmpty = Schema.Struct({ field: Schema.NonEmptyArray(Schema.String) })
      assert.deepStrictEqual(yield* errorsOf(NonEmpty, { field: [] }), { "field.0": ["must have at least 1 item"] })
    }))

  it.effect("messages a schema's author wrote are kept (filters, pattern messages)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* messagesOf(Email, "nope"), ["must be a valid email address"])
      const NoNul = Schema.String.check(
        Schema.makeFilter((s: string) => !s.includes("\u0000") || "must not contain NUL characters")
      )
      assert.deepStrictEqual(yield* messagesOf(NoNul, "a\u0000b"), ["must not contain NUL characters"])
      assert.deepStrictEqual(yield* messagesOf(NoNul, 5), ["must be a string"])
      const Described = Schema.String.check(
        Schema.makeFilter((s: string) => !s.includes("\u0000"), { description: "text without NUL" })
      )
      assert.deepStrictEqual(yield* messagesOf(Described, "a\u0000b"), ["must be text without NUL"])
      const Bare = Schema.String.check(Schema.makeFilter((s: string) => s.length % 2 === 0))
      assert.deepStrictEqual(yield* messagesOf(Bare, "abc"), ["is invalid"])
    }))

  it.effect("the engine's requests: no schema syntax and no rejected value in any message", () =>
    Effect.gen(function*() {
      const all = [
        yield* errorsOf(CreateAgent, {
          name: SECRET.repeat(20),
          avatar_url: SECRET.repeat(200),
          max_messages_per_session: "5",
          is_active: SECRET,
          escalation_rules: [{ channel: SECRET, rule: "", escalate_to: SECRET }, SECRET],
          prohibited_phrases: SECRET
        }),
        yield* errorsOf(UpdateAgent, { model: SECRET, description: null }),
        yield* errorsOf(CreateConversation, { customer_id: SECRET, channel: SECRET, priority: 5 }),
        yield* errorsOf(CreateWebhook, { url: SECRET, events: [] })
      ]
      assert.deepStrictEqual(all[0], {
        name: ["must be at most 255 characters"],
        avatar_url: ["must be at most 2,048 characters"],
        max_messages_per_session: ["must be an integer"],
        is_active: ["must be a boolean"],
        "escalation_rules.0.channel": ["must be one of: email, chat"],
        "escalation_rules.0.rule": ["must not be empty"],
        "escalation_rules.0.escalate_to": ["must be a UUID"],
        "escalation_rules.1": ["must be an object"],
        prohibited_phrases: ["must be an array"]
      })
      assert.deepStrictEqual(all[1]!["description"], ["must be a string"])
      assert.deepStrictEqual(all[2]!["customer_id"], ["must be a UUID"])
      assert.deepStrictEqual(all[3]!["events"], ["must have at least 1 item"])
      const text = JSON.stringify(all)
      assert.notInclude(text, "do-not-print")
      assert.notMatch(text, /Expected|actual|\| null|character\(s\)|maxLength|minLength|\{ .* \| filter \}/)
    }))
})

describe("optional request fields keep Effect 3's rules (D13)", () => {
  /** Field errors of `input` decoded as HttpApi decodes a JSON body (the JSON codec of the request schema). */
  const jsonErrorsOf = <A, I>(schema: Schema.Codec<A, I>, input: unknown) =>
    Effect.map(
      Effect.flip(Schema.decodeUnknownEffect(Schema.toCodecJson(schema), { errors: "all" })(input)),
      fieldErrors
    )

  /** The JSON Schema of a request class's fields, as OpenAPI shows its body. */
  const propertiesOf = (schema: Schema.Top): Record<string, unknown> => {
    const document = Schema.toJsonSchemaDocument(Schema.toCodecJson(schema))
    const root: unknown = document.schema
    const name = Predicate.hasProperty(root, "$ref") && typeof root.$ref === "string"
      ? root.$ref.split("/").at(-1)
      : undefined
    const body: unknown = name === undefined ? root : document.definitions[name]
    return Predicate.hasProperty(body, "properties") && Predicate.isObject(body.properties)
      ? { ...body.properties }
      : {}
  }

  it.effect("null for an optional field that is not nullable is refused, in-process and as JSON", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* errorsOf(UpdateAgent, { tone: null }), { tone: ["must be a string"] })
      assert.deepStrictEqual(yield* jsonErrorsOf(UpdateAgent, { tone: null }), { tone: ["must be a string"] })
      assert.deepStrictEqual(yield* errorsOf(CreateConversation, { customer_id: UUID_V7, tags: null }), {
        tags: ["must be an array"]
      })
      // A nullable optional field takes null (clearing it), as before.
      const cleared = yield* decodeRequest(UpdateAgent)({ avatar_url: null })
      assert.strictEqual(cleared.avatar_url, null)
    }))

  it.effect("the JSON Schema shows an optional field as its own type, and null only where it is nullable", () =>
    Effect.sync(() => {
      const agent = propertiesOf(UpdateAgent)
      assert.deepStrictEqual(agent["tone"], { type: "string", maxLength: 255 })
      assert.deepStrictEqual(agent["avatar_url"], { anyOf: [{ type: "string", maxLength: 2048 }, { type: "null" }] })
      assert.deepStrictEqual(agent["model"], { not: {} })
      assert.deepStrictEqual(propertiesOf(UpdateTrainingData)["metadata"], { not: {} })
    }))

  it.effect("patterns are in the JSON Schema (locale, slug, email, UUID)", () =>
    Effect.sync(() => {
      const text = JSON.stringify([
        Schema.toJsonSchemaDocument(Schema.toCodecJson(CreateArticle)),
        propertiesOf(CreateCustomer)["email"]
      ])
      assert.include(text, JSON.stringify("^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"))
      assert.include(text, JSON.stringify("^[a-z0-9]+(-[a-z0-9]+)*$"))
      assert.include(text, JSON.stringify("^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$"))
      assert.deepStrictEqual(Schema.toJsonSchemaDocument(Uuid).schema, {
        type: "string",
        pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        format: "uuid"
      })
    }))

  it.effect("any UUID is accepted, whatever its version and variant digits (D5)", () =>
    Effect.sync(() => {
      const isUuid = Schema.is(Uuid)
      assert.isTrue(isUuid(UUID_V7))
      assert.isTrue(isUuid("00000000-0000-0000-0000-000000000001"))
      assert.isTrue(isUuid("AAAAAAAA-aaaa-aaaa-aaaa-aaaaaaaaaaaa"))
      assert.isFalse(isUuid("0000000-0000-0000-0000-000000000001"))
      assert.isFalse(isUuid(`${UUID_V7}0`))
    }))

  it.effect("keys holding undefined are absent, as a JSON round trip leaves them", () =>
    Effect.gen(function*() {
      const update = yield* decodeRequest(UpdateAgent)({
        tone: undefined,
        model: undefined,
        prohibited_phrases: [{ phrase: "refund", note: undefined }]
      })
      assert.deepStrictEqual({ ...update }, { prohibited_phrases: [{ phrase: "refund" }] })
      assert.isFalse("tone" in update)
      // `undefined` is not a value of any field: a present key still says what the field takes.
      assert.deepStrictEqual(yield* errorsOf(UpdateAgent, { tone: undefined, name: "" }), {
        name: ["must not be empty"]
      })
      const plain = { tone: "warm", prohibited_phrases: [{ phrase: "refund" }] }
      assert.strictEqual(withoutUndefinedKeys(plain), plain)
      assert.deepStrictEqual(withoutUndefinedKeys([{ a: 1, b: undefined }, undefined]), [{ a: 1 }, undefined])
    }))
})

describe("a nullable field reports the rule its non-null member broke (D13, issue 20)", () => {
  const token = { workspace_id: UUID_V7, name: "ci", abilities: ["external-api:read"] }

  it.effect("a NullOr field with a default (CreateApiToken.expires_at)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* errorsOf(CreateApiToken, { ...token, expires_at: "soon" }), {
        expires_at: ["must be an RFC 3339 date-time"]
      })
      assert.deepStrictEqual(yield* errorsOf(CreateApiToken, { ...token, expires_at: "2026-02-30T00:00:00Z" }), {
        expires_at: ["must be an RFC 3339 date-time"]
      })
      assert.deepStrictEqual(yield* errorsOf(CreateApiToken, { ...token, expires_at: 5 }), {
        expires_at: ["must be null or an RFC 3339 date-time"]
      })
      const none = yield* decodeRequest(CreateApiToken)({ ...token, expires_at: null })
      assert.strictEqual(none.expires_at, null)
    }))

  it.effect("an optional NullOr field, and one with a default, say the same", () =>
    Effect.gen(function*() {
      const Optional = Schema.Struct({ field: Schema.optionalKey(Schema.NullOr(Timestamp)) })
      assert.deepStrictEqual(yield* errorsOf(Optional, { field: "soon" }), {
        field: ["must be an RFC 3339 date-time"]
      })
      const Defaulted = Schema.Struct({
        field: Schema.NullOr(BoundedString(2)).pipe(Model.withDefault(() => null))
      })
      assert.deepStrictEqual(yield* errorsOf(Defaulted, { field: "abc" }), { field: ["must be at most 2 characters"] })
      assert.deepStrictEqual(yield* errorsOf(Defaulted, { field: 5 }), { field: ["must be null or a string"] })
    }))
})
