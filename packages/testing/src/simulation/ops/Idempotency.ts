/**
 * Idempotency keys (like Stripe's `Idempotency-Key`), in process as the Promise API takes them
 * (`{ idempotencyKey }`: core's `Idempotency` with the request's fingerprint, its method, path and JSON body):
 * a customer created, or a user's message or a customer's question sent, under a new key (a question to an agent
 * that answers by itself is an ask of invariants/Replies.ts, answered once however often it is replayed); the same request again under the same key answers
 * the first answer, byte for byte, and writes nothing (no event, no row, no delivery: one event for both calls);
 * the key with another body is `IdempotencyKeyReused` (422) and changes nothing; a key over 255 characters is a
 * `ValidationError` and writes nothing. Keys are kept 24 hours, so replays are made only within 23.
 */
import {
  ConversationId,
  CreateCustomer,
  CreateMessage,
  Customer,
  CustomerId,
  Customers,
  decodeRequest,
  Idempotency,
  Message,
  Messages,
  Principal,
  requestFingerprint
} from "@support-engine/core"
import { Clock, Effect, Option, Schema } from "effect"
import { broken } from "../Failure.js"
import { type AgentModel, type KeyModel, type Space, touch } from "../Model.js"
import { QUESTIONS } from "../Questions.js"
import type { Rng } from "../Rng.js"
import { answeredIn, answering, asked } from "./Conversations.js"
import { type AnyCall, asPrincipal, type Op, recorded, refused, type Sim, valid } from "./Op.js"

const KEPT = 23 * 3600 * 1000

/** The request a key stands for: its path and the call, answering the JSON the Promise API would. */
const request = (
  kind: KeyModel["kind"],
  target: string,
  body: Readonly<Record<string, unknown>>
): { readonly path: string; readonly work: AnyCall } =>
  kind === "customer"
    ? {
      path: "/v1/customers",
      work: Effect.flatMap(Customers, (s) => Effect.flatMap(decodeRequest(CreateCustomer)(body), s.create)).pipe(
        Effect.flatMap(Schema.encodeEffect(Customer))
      )
    }
    : {
      path: `/v1/conversations/${target}/messages`,
      work: Effect.flatMap(
        Messages,
        (s) =>
          Effect.flatMap(decodeRequest(CreateMessage)(body), (input) => s.create(ConversationId.make(target), input))
      ).pipe(Effect.flatMap(Schema.encodeEffect(Message)))
    }

/** The call under `key`, as `keyed` of the Promise API runs it: the answer as JSON, run now or replayed. */
const keyed = (key: string, kind: KeyModel["kind"], target: string, body: Readonly<Record<string, unknown>>) => {
  const { path, work } = request(kind, target, body)
  return Effect.gen(function*() {
    const principal = yield* Principal
    const idempotency = yield* Idempotency
    const result = yield* idempotency.run(
      principal.workspaceId,
      key,
      requestFingerprint("POST", path, body),
      work,
      (value) => Option.some({ status: 201, body: JSON.stringify(value), headers: {} })
    )
    return result._tag === "Fresh"
      ? { replayed: false, answer: JSON.stringify(result.value) }
      : { replayed: true, answer: result.outcome.body }
  })
}

const fresh = (
  sim: Sim,
  space: Space,
  kind: KeyModel["kind"],
  target: string,
  body: Record<string, unknown>,
  question?: { readonly agent: AgentModel | undefined; readonly bound: number }
) =>
  Effect.gen(function*() {
    const key = `key-${++sim.world.serial}`
    const now = yield* Clock.currentTimeMillis
    const { answer, replayed } = yield* valid(sim, space, `keyed ${kind}`, keyed(key, kind, target, body))
    if (replayed) return yield* broken("a new idempotency key runs its request", key)
    const id = (JSON.parse(answer) as { readonly id: string }).id
    space.keys.push({ key, at: now, kind, target, body, answer })
    if (kind === "customer") {
      space.customers.push({ id: CustomerId.make(id), email: String(body["email"]) })
      touch(sim.world, space, "customers")
    } else {
      const c = sim.world.conversations.get(target)!
      c.messages++
      space.messages++
      touch(sim.world, space, "messages")
      // Its replays must not ask the agent again: one reply or handoff for the one message.
      if (question?.agent !== undefined) asked(sim, c, question.agent, question.bound, now)
    }
    return `keyed ${kind} ${space.index} ${key} ${id}${
      question?.agent === undefined ? "" : ` asks ${question.agent.id}`
    }`
  })

const replay = (sim: Sim, space: Space, k: KeyModel) =>
  Effect.gen(function*() {
    const before = yield* recorded(sim, space.principal.actor.id)
    const outcome = yield* sim.engine.run(asPrincipal(space.principal)(keyed(k.key, k.kind, k.target, k.body))).pipe(
      Effect.catch((e) => broken("an idempotent replay succeeds", `${k.key}: ${e._tag}`))
    )
    if (!outcome.replayed || outcome.answer !== k.answer) {
      return yield* broken(
        "an idempotent replay answers the first answer",
        `${k.key}: ${outcome.replayed ? "replayed" : "ran again"} ${outcome.answer} against ${k.answer}`
      )
    }
    const after = yield* recorded(sim, space.principal.actor.id)
    if (after !== before) return yield* broken("an idempotent replay writes nothing", `${before} -> ${after}`)
    return `replay ${k.key}`
  })

/**
 * A keyed message: mostly a customer's question where an agent answers by itself (in any workspace, as there a
 * replay could ask it twice), else a question or a user's message in one of `space`'s conversations.
 */
const keyedMessage = (sim: Sim, home: Space, rng: Rng) =>
  Effect.gen(function*() {
    const answered = answeredIn(sim.world.spaces)
    const { c, space } = answered.length > 0 && (yield* rng.chance(0.7))
      ? yield* rng.pick(answered)
      : home.conversations.length > 0
      ? { space: home, c: yield* rng.pick(home.conversations) }
      : { space: home, c: undefined }
    if (c === undefined) return undefined
    const customerHere = space.customers.some((x) => x.id === c.customer)
    // A question while an earlier one may be skipped would make it unclear which one an answer is for.
    if ((yield* rng.chance(0.7)) && customerHere && !c.asks.some((a) => a.maybe)) {
      const question = yield* rng.pick(QUESTIONS)
      return yield* fresh(
        sim,
        space,
        "message",
        c.id,
        { sender_type: "customer", sender_id: c.customer, content: question.text },
        { agent: answering(space, c), bound: question.bound }
      )
    }
    if (space.users.length === 0) return undefined
    return yield* fresh(sim, space, "message", c.id, {
      sender_type: "user",
      sender_id: yield* rng.pick(space.users),
      content: `Keyed ${sim.world.serial + 1}.`
    })
  })

export const idempotent: Op = {
  name: "idempotency",
  weight: 4,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const now = yield* Clock.currentTimeMillis
      const live = space.keys.filter((k) => now - k.at < KEPT)
      const choice = yield* rng.int(0, 8)
      if (choice <= 2 || (choice <= 5 && live.length === 0)) {
        if (choice >= 1) {
          const message = yield* keyedMessage(sim, space, rng)
          if (message !== undefined) return message
        }
        return yield* fresh(sim, space, "customer", "", { email: `keyed${sim.world.serial + 1}@example.test` })
      }
      if (choice <= 4) return yield* replay(sim, space, yield* rng.pick(live))
      if (choice === 5) {
        const k = yield* rng.pick(live)
        const other = k.kind === "customer"
          ? { email: `other${++sim.world.serial}@example.test` }
          : { ...k.body, content: "Something else." }
        return yield* refused(
          sim,
          space,
          `idempotency key reused for another ${k.kind}`,
          "IdempotencyKeyReused",
          keyed(k.key, k.kind, k.target, other)
        )
      }
      return yield* refused(
        sim,
        space,
        "an idempotency key over 255 characters",
        "ValidationError",
        keyed("k".repeat(256), "customer", "", { email: `long${++sim.world.serial}@example.test` })
      )
    })
}
