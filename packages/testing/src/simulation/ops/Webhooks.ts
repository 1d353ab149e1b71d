/**
 * Webhook subscriptions: created with a receiver that answers at random (2xx, 5xx, 410,
 * timeouts, slow answers), their events changed, their secrets rotated (grace 0, a minute or the default day),
 * re-enabled after the engine deactivated them, and deleted; a subscription to nothing is refused (422), another
 * workspace's webhook is a 404 and stays as it was.
 */
import {
  CreateWebhook,
  decodeRequest,
  RotateWebhookSecret,
  UpdateWebhook,
  type WebhookEventType,
  Webhooks
} from "@support-engine/core"
import { Clock, Duration, Effect, Redacted } from "effect"
import { createHash } from "node:crypto"
import type { ScriptedAnswer } from "../../RecordingReceiver.js"
import { type HookModel, touch } from "../Model.js"
import type { Rng } from "../Rng.js"
import { type AnyCall, type Op, otherSpace, refused, valid } from "./Op.js"

const FILTERS: ReadonlyArray<ReadonlyArray<WebhookEventType>> = [
  ["*"],
  ["*"],
  ["customer.created", "customer.deleted"],
  ["conversation.agent.message.created", "conversation.escalated", "conversation.customer.message.created"],
  ["training.updated", "webhook.deactivated"]
]

/** How a receiver behaves: mostly well, failing now and then, always failing, or gone after a while. */
const MOODS: ReadonlyArray<{ readonly answers: ReadonlyArray<ScriptedAnswer>; readonly fallback: ScriptedAnswer }> = [
  { answers: [204, 200, 500, 204, { status: 200, after: Duration.seconds(3) }], fallback: 204 },
  { answers: [500, 503, "timeout", 204, 502, { status: 204, after: Duration.seconds(2) }], fallback: 200 },
  { answers: [], fallback: 500 },
  { answers: ["timeout", 500], fallback: 503 },
  { answers: [204, 204, 500], fallback: 410 },
  { answers: [{ status: 201, after: Duration.seconds(12) }, 204], fallback: 204 }
]

/** Attempts of a delivery that may get one of the mood's answers; later ones get its fallback. */
const SCRIPTED = 6

/**
 * A receiver in a random mood. Each attempt's answer is drawn from the hook's seed, the delivery id and the attempt
 * number (RecordingReceiver.ts): the same delivery attempt gets the same answer in every run of the seed, whatever
 * order concurrent attempts arrive in.
 */
const script = (rng: Rng) =>
  Effect.gen(function*() {
    const index = yield* rng.int(0, MOODS.length)
    const mood = MOODS[index]!
    const seed = yield* rng.int(0, 2 ** 31 - 1)
    const pool = mood.answers.length > 0 ? mood.answers : [mood.fallback]
    const answer = (deliveryId: string, attempt: number): ScriptedAnswer => {
      if (attempt >= SCRIPTED) return mood.fallback
      const h = createHash("sha256").update(`${seed} ${deliveryId} ${attempt}`).digest()
      return h.readUInt32BE(0) / 2 ** 32 < 0.6 ? pool[h.readUInt32BE(4) % pool.length]! : mood.fallback
    }
    return { answer, describe: `mood ${index} seed ${seed}` }
  })

const GRACES = [0, 60, undefined] as const

export const webhook: Op = {
  name: "webhook",
  weight: 12,
  run: (sim, rng) =>
    Effect.gen(function*() {
      const space = yield* rng.pick(sim.world.spaces)
      const choice = yield* rng.int(0, 12)
      const now = yield* Clock.currentTimeMillis
      if (choice <= 2 || space.hooks.length === 0) {
        if (space.hooks.length >= 3) return undefined
        const url = `https://hooks.example.test/r${++sim.world.serial}`
        const receiver = yield* script(rng)
        yield* sim.receiver.answerWith(url, receiver.answer)
        const events = yield* rng.pick(FILTERS)
        const created = yield* valid(
          sim,
          space,
          "webhook",
          Effect.flatMap(Webhooks, (w) => w.create(new CreateWebhook({ url, events: [...events] })))
        )
        const hook: HookModel = {
          id: created.id,
          space: space.index,
          url,
          events,
          active: true,
          deleted: false,
          deletedAt: undefined,
          secrets: [{ secret: Redacted.value(created.secret), from: now, until: undefined }]
        }
        space.hooks.push(hook)
        sim.world.hooksByUrl.set(url, hook)
        touch(sim.world, space, "webhooks")
        return `webhook ${space.index} ${created.id} ${url} ${events.join(",")} ${receiver.describe}`
      }
      const hook = yield* rng.pick(space.hooks)
      const probe = { owner: space, read: Effect.flatMap(Webhooks, (w) => w.get(hook.id)) }
      switch (choice) {
        case 3:
        case 4: {
          const grace = yield* rng.pick(GRACES)
          const rotated = yield* valid(
            sim,
            space,
            "rotate",
            Effect.flatMap(Webhooks, (w) =>
              w.rotateSecret(
                hook.id,
                new RotateWebhookSecret(grace === undefined ? {} : { grace_period_seconds: grace })
              ))
          )
          const current = hook.secrets.find((s) => s.until === undefined)!
          current.until = now + (grace ?? 24 * 3600) * 1000
          hook.secrets.push({ secret: Redacted.value(rotated.secret), from: now, until: undefined })
          return `rotate ${hook.id} grace=${grace ?? "default"}`
        }
        case 5: {
          const events = yield* rng.pick(FILTERS)
          yield* valid(
            sim,
            space,
            "webhook events",
            Effect.flatMap(Webhooks, (w) => w.update(hook.id, new UpdateWebhook({ events: [...events] })))
          )
          hook.events = events
          return `webhook ${hook.id} events ${events.join(",")}`
        }
        case 6:
        case 7: {
          if (hook.active) return undefined
          yield* valid(sim, space, "enable", Effect.flatMap(Webhooks, (w) => w.enable(hook.id)))
          hook.active = true
          sim.deliveries.enabled(hook, now)
          // A receiver that took the webhook down is given a better mood, as an operator would fix it first.
          yield* sim.receiver.script(hook.url, [], 204)
          return `enable ${hook.id}`
        }
        case 8: {
          yield* valid(sim, space, "webhook delete", Effect.flatMap(Webhooks, (w) => w.delete(hook.id)))
          hook.deleted = true
          hook.deletedAt = now
          space.hooks.splice(space.hooks.indexOf(hook), 1)
          sim.deliveries.deleted(hook, now)
          touch(sim.world, space, "webhooks")
          return `webhook delete ${hook.id}`
        }
        case 9:
          return yield* refused(
            sim,
            space,
            "webhook with no events",
            "ValidationError",
            Effect.flatMap(
              decodeRequest(UpdateWebhook)({ events: [] }),
              (input) => Effect.flatMap(Webhooks, (w) => w.update(hook.id, input))
            ),
            probe
          )
        default: {
          const other = otherSpace(sim, space, (s) => s.hooks)
          if (other === undefined) return undefined
          const foreign = (yield* rng.pick(other.hooks)).id
          const calls: ReadonlyArray<readonly [string, AnyCall]> = [
            ["get", Effect.flatMap(Webhooks, (w) => w.get(foreign))],
            ["rotate", Effect.flatMap(Webhooks, (w) => w.rotateSecret(foreign, new RotateWebhookSecret({})))],
            ["enable", Effect.flatMap(Webhooks, (w) => w.enable(foreign))],
            ["delete", Effect.flatMap(Webhooks, (w) => w.delete(foreign))]
          ]
          const [verb, call] = yield* rng.pick(calls)
          return yield* refused(sim, space, `cross-workspace webhook ${verb}`, "NotFound", call, {
            owner: other,
            read: Effect.flatMap(Webhooks, (w) => w.get(foreign))
          })
        }
      }
    })
}
