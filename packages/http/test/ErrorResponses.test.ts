/** Every error schema: the wire body and status of D12-D14, and back to the same core error (client side). */
import { assert, describe, it } from "@effect/vitest"
import {
  BusinessStateError,
  CreationFailed,
  Forbidden,
  InsufficientAbility,
  InvalidAgent,
  InvalidAssignee,
  InvalidAssigneeType,
  InvalidSender,
  InvalidType,
  NotFound,
  NoUrlsProvided,
  PersistenceError,
  ProcessingFailed,
  Unauthenticated,
  UrlDiscoveryRequired,
  ValidationError
} from "@support-engine/core"
import { Effect, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import * as R from "../src/shared/ErrorResponses.js"

/** The status HttpApi answers `schema` with, as an endpoint's error. */
const statusOf = (schema: Schema.Top): number | undefined => {
  let status: number | undefined
  HttpApi.reflect(HttpApi.make("t").add(HttpApiGroup.make("g").add(HttpApiEndpoint.get("e", "/", { error: schema }))), {
    onGroup: () => {},
    onEndpoint: ({ errors }) => {
      status = [...errors.keys()][0]
    }
  })
  return status
}

/** The error encodes to the envelope with its code and status, decodes back, and no other code decodes as it. */
const roundTrip = <A extends { readonly message: string }, I>(
  schema: Schema.Codec<A, I>,
  error: A,
  status: number,
  code: string
) =>
  Effect.gen(function*() {
    const wire: unknown = yield* Schema.encodeEffect(schema)(error)
    assert.deepStrictEqual(wire, { error: error.message, code, errors: null }, code)
    assert.strictEqual(statusOf(schema), status, code)
    assert.deepStrictEqual(yield* Schema.decodeUnknownEffect(schema)(wire), error, code)
    // The client tells the errors of one status apart by code.
    const other = yield* Effect.result(
      Schema.decodeUnknownEffect(schema)({ error: error.message, code: "OTHER", errors: null })
    )
    assert.strictEqual(other._tag, "Failure", code)
  })

describe("ErrorResponses", () => {
  it.effect("each core error encodes to the standard envelope with its code and status, and decodes back", () =>
    Effect.all([
      roundTrip(R.UnauthenticatedResponse, new Unauthenticated(), 401, "UNAUTHENTICATED"),
      roundTrip(
        R.InsufficientAbilityResponse,
        InsufficientAbility.lacking("customers:read", "external-api:read"),
        403,
        "INSUFFICIENT_TOKEN_ABILITY"
      ),
      roundTrip(R.ForbiddenResponse, new Forbidden({ message: "Protected." }), 403, "FORBIDDEN"),
      roundTrip(R.NotFoundResponse, new NotFound({ resource: "Training data" }), 404, "RESOURCE_NOT_FOUND"),
      roundTrip(R.InvalidSenderResponse, new InvalidSender({ message: "m" }), 400, "INVALID_SENDER"),
      roundTrip(R.InvalidAssigneeResponse, new InvalidAssignee({ message: "m" }), 400, "INVALID_ASSIGNEE"),
      roundTrip(
        R.InvalidAssigneeTypeResponse,
        new InvalidAssigneeType({ message: "m" }),
        400,
        "INVALID_ASSIGNEE_TYPE"
      ),
      roundTrip(R.InvalidTypeResponse, new InvalidType({ message: "m" }), 400, "INVALID_TYPE"),
      roundTrip(R.InvalidAgentResponse, new InvalidAgent({ message: "m" }), 400, "INVALID_AGENT"),
      roundTrip(R.UrlDiscoveryRequiredResponse, new UrlDiscoveryRequired(), 422, "URL_DISCOVERY_REQUIRED"),
      roundTrip(R.NoUrlsProvidedResponse, new NoUrlsProvided(), 422, "NO_URLS_PROVIDED"),
      roundTrip(R.ProcessingFailedResponse, new ProcessingFailed(), 500, "PROCESSING_FAILED"),
      roundTrip(R.CreationFailedResponse, new CreationFailed(), 500, "CREATION_FAILED")
    ]))

  it.effect("the client chooses the class by code and keeps the message as sent: no message text is parsed", () =>
    Effect.gen(function*() {
      // Messages no rule of the server would write: they still decode, by code, to the class the code names.
      const notFound = yield* Schema.decodeUnknownEffect(R.NotFoundResponse)({
        error: "Nothing here.",
        code: "RESOURCE_NOT_FOUND",
        errors: null
      })
      assert.instanceOf(notFound, NotFound)
      assert.deepStrictEqual([notFound.message, notFound.status, notFound.code], [
        "Nothing here.",
        404,
        "RESOURCE_NOT_FOUND"
      ])
      const ability = yield* Schema.decodeUnknownEffect(R.InsufficientAbilityResponse)({
        error: "No write ability.",
        code: "INSUFFICIENT_TOKEN_ABILITY",
        errors: null
      })
      assert.instanceOf(ability, InsufficientAbility)
      assert.strictEqual(ability.message, "No write ability.")
      // One status, two classes (403): the code decides.
      const forbidden = Schema.decodeUnknownResult(R.ForbiddenResponse)({
        error: "No write ability.",
        code: "INSUFFICIENT_TOKEN_ABILITY",
        errors: null
      })
      assert.strictEqual(forbidden._tag, "Failure")
    }))

  it("each response states its class's status and code, which the class states once (core's Errors.ts)", () => {
    const pairs: ReadonlyArray<
      readonly [Schema.Top, { readonly status: number; readonly code: string | null }]
    > = [
      [R.UnauthenticatedResponse, Unauthenticated],
      [R.InsufficientAbilityResponse, InsufficientAbility],
      [R.ForbiddenResponse, Forbidden],
      [R.NotFoundResponse, NotFound],
      [R.InvalidSenderResponse, InvalidSender],
      [R.InvalidAssigneeResponse, InvalidAssignee],
      [R.InvalidAssigneeTypeResponse, InvalidAssigneeType],
      [R.InvalidTypeResponse, InvalidType],
      [R.InvalidAgentResponse, InvalidAgent],
      [R.UrlDiscoveryRequiredResponse, UrlDiscoveryRequired],
      [R.NoUrlsProvidedResponse, NoUrlsProvided],
      [R.ProcessingFailedResponse, ProcessingFailed],
      [R.CreationFailedResponse, CreationFailed],
      [R.PersistenceErrorResponse, PersistenceError],
      [R.ValidationErrorResponse, ValidationError],
      [R.BusinessStateErrorResponse, BusinessStateError]
    ]
    for (const [schema, error] of pairs) assert.strictEqual(statusOf(schema), error.status)
    // Instances carry the same values, for in-process callers.
    assert.deepStrictEqual([new NotFound({ resource: "Agent" }).status, new NotFound({ resource: "Agent" }).code], [
      404,
      "RESOURCE_NOT_FOUND"
    ])
    assert.strictEqual(new NotFound({ resource: "Agent" }).message, "Agent not found.")
  })

  it.effect("500 PersistenceError: a fixed body with code null; the reason never leaves the server (D12)", () =>
    Effect.gen(function*() {
      const error = new PersistenceError({ reason: "SQLITE_BUSY on table secret_things" })
      const wire = yield* Schema.encodeEffect(R.PersistenceErrorResponse)(error)
      assert.deepStrictEqual(wire, { error: "Internal server error.", code: null, errors: null })
      assert.strictEqual(statusOf(R.PersistenceErrorResponse), 500)
      assert.instanceOf(yield* Schema.decodeUnknownEffect(R.PersistenceErrorResponse)(wire), PersistenceError)
    }))

  it.effect("422 shapes: validation {message, errors} (D13) and business state {success: false, message} (D14)", () =>
    Effect.gen(function*() {
      const validation = new ValidationError({ errors: { "agent_ids.0": ["must be a UUID"] } })
      const wire = yield* Schema.encodeEffect(R.ValidationErrorResponse)(validation)
      assert.deepStrictEqual(wire, {
        message: "The given data was invalid.",
        errors: { "agent_ids.0": ["must be a UUID"] }
      })
      assert.deepStrictEqual(yield* Schema.decodeUnknownEffect(R.ValidationErrorResponse)(wire), validation)
      const state = new BusinessStateError({ message: "No completed URLs." })
      const stateWire = yield* Schema.encodeEffect(R.BusinessStateErrorResponse)(state)
      assert.deepStrictEqual(stateWire, { success: false, message: "No completed URLs." })
      assert.deepStrictEqual(yield* Schema.decodeUnknownEffect(R.BusinessStateErrorResponse)(stateWire), state)
      assert.deepStrictEqual([statusOf(R.ValidationErrorResponse), statusOf(R.BusinessStateErrorResponse)], [422, 422])
    }))

  it("field errors: dotted request paths, `body` at the root, a message once, the silent undefined member dropped", () => {
    const errors = R.fieldErrorsFromIssues([
      { path: ["agent_ids", 0], message: "must be a UUID" },
      { path: [], message: "must be an object" },
      { path: ["domain"], message: "must be null or a string" },
      { path: ["domain"], message: "must be null or a string" },
      { path: ["tags"], message: "" },
      { path: ["name"], message: `must be ${"x".repeat(1000)}` }
    ])
    assert.deepStrictEqual(Object.keys(errors), ["agent_ids.0", "body", "domain", "name"])
    assert.deepStrictEqual(errors.domain, ["must be null or a string"])
    assert.strictEqual(errors.name![0]!.length, R.MAX_MESSAGE_LENGTH)
    assert.isTrue(errors.name![0]!.endsWith("…"))
  })

  it("HttpFailure bodies for the HTTP-only failures (D7, D12)", () => {
    const rendered = [
      R.HttpFailure.unsupportedMediaType,
      R.HttpFailure.malformedJson,
      R.HttpFailure.payloadTooLarge(10),
      R.HttpFailure.routeNotFound,
      R.HttpFailure.methodNotAllowed,
      R.HttpFailure.internal
    ].map((failure) => [failure.status, failure.code])
    assert.deepStrictEqual(rendered, [
      [415, "UNSUPPORTED_MEDIA_TYPE"],
      [400, "MALFORMED_JSON"],
      [413, "PAYLOAD_TOO_LARGE"],
      [404, "ROUTE_NOT_FOUND"],
      [405, "METHOD_NOT_ALLOWED"],
      [500, null]
    ])
  })
})
