/**
 * A seeded simulation of the engine (issue 19, first piece): several workspaces, random valid and invalid writes,
 * webhooks created, rotated and deleted, receivers answering at random (5xx, 410, timeouts, slow answers) and clock
 * jumps, with invariants checked after every step. Randomness comes only from the seed (Effect's `Random`), time only
 * from the `TestClock`, ids from `IdGenerator.Deterministic`: the same seed gives the same trace, byte for byte.
 * AI agents with `auto_reply` answer customer messages (D53): every one of them exactly once.
 * Not yet here (docs/testing.md): crashes and reopening, tokens, shrinking, PostgreSQL runs.
 */
import {
  Actor,
  type AgentId,
  Agents,
  type ConversationId,
  Conversations,
  CreateAgent,
  CreateApiToken,
  CreateArticle,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWebhook,
  CreateWorkspace,
  type CustomerId,
  Customers,
  KnowledgeBase,
  ListCustomers,
  ListMessages,
  Messages,
  Principal,
  type PrincipalShape,
  RotateWebhookSecret,
  Tokens,
  TranslationInput,
  type WebhookId,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { verify } from "@support-engine/webhooks"
import { Effect, Layer, Logger, LogLevel, Random, Redacted, TestContext } from "effect"
import { createHash } from "node:crypto"
import { advanceBy, settle } from "./Advance.js"
import { RecordingReceiver, type ScriptedAnswer } from "./RecordingReceiver.js"
import { makeTestEngine, type TestEngine } from "./TestEngine.js"

export interface SimulationOptions {
  readonly seed: number
  readonly steps: number
  readonly databaseUrl?: string
  /** A planted bug for the simulator's own test: the receiver's record of signatures is corrupted. */
  readonly plantBug?: "drop-signature" | undefined
}

export type SimulationResult =
  | { readonly _tag: "Ok"; readonly trace: string; readonly hash: string }
  | { readonly _tag: "Failed"; readonly step: number; readonly invariant: string; readonly trace: string }

/** A workspace's AI agent, its customer's conversations with it and the customer messages sent to them. */
interface AiDesk {
  readonly agent: AgentId
  readonly customer: CustomerId
  readonly conversations: Array<ConversationId>
  asked: number
}

interface Space {
  readonly principal: PrincipalShape
  readonly customers: Array<CustomerId>
  ai: AiDesk | undefined
  readonly webhooks: Array<{ readonly id: WebhookId; readonly url: string; readonly secrets: Array<string> }>
}

class InvariantBroken extends Error {}

const as = (principal: PrincipalShape) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.provideService(self, Principal, principal)

const ANSWERS: ReadonlyArray<ScriptedAnswer> = [204, 200, 500, 503, 410, "timeout", { status: 200, after: 3000 }]

const pick = <A>(items: ReadonlyArray<A>) => Effect.map(Random.nextIntBetween(0, items.length), (i) => items[i]!)

const run = (options: SimulationOptions, trace: Array<string>) =>
  Effect.gen(function*() {
    const receiver = yield* RecordingReceiver
    const spaces: Array<Space> = []
    let urls = 0
    let checked = 0

    const newSpace = Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: `ws${spaces.length}` }))
      const { token } = yield* (yield* Tokens).create(
        new CreateApiToken({ workspace_id: workspace.id, name: "sim", abilities: ["external-api:write"] })
      )
      spaces.push({
        principal: {
          workspaceId: workspace.id,
          organizationId: workspace.organization_id,
          abilities: ["external-api:write"],
          actor: Actor.apiToken(token.id)
        },
        customers: [],
        webhooks: [],
        ai: undefined
      })
      return `workspace ${workspace.id}`
    })

    const step = Effect.gen(function*() {
      if (spaces.length === 0) return yield* newSpace
      const space = yield* pick(spaces)
      const op = yield* Random.nextIntBetween(0, 11)
      const act = as(space.principal)
      switch (op) {
        case 0:
          return spaces.length < 4 ? yield* newSpace : "skip"
        case 1:
        case 2: {
          const c = yield* act((yield* Customers).create(new CreateCustomer({ first_name: `c${op}` })))
          space.customers.push(c.id)
          return `customer ${c.id}`
        }
        case 3: {
          // An invalid write: a customer of another workspace, which must be the same 404 as a missing one.
          const other = spaces.find((s) => s !== space && s.customers.length > 0)
          if (other === undefined) return "skip"
          const outcome = yield* act((yield* Customers).get(other.customers[0]!)).pipe(
            Effect.as("visible"),
            Effect.catchAll((e) => Effect.succeed(e._tag))
          )
          if (outcome === "visible") throw new InvariantBroken("no cross-workspace visibility")
          return `cross-workspace get: ${outcome}`
        }
        case 4: {
          if (space.customers.length === 0) return "skip"
          const id = space.customers.splice(yield* Random.nextIntBetween(0, space.customers.length), 1)[0]!
          yield* act((yield* Customers).delete(id))
          return `delete ${id}`
        }
        case 5: {
          if (space.webhooks.length >= 3) return "skip"
          const url = `https://hooks.example.test/r${++urls}`
          const answers: Array<ScriptedAnswer> = []
          for (let i = 0; i < 5; i++) answers.push(yield* pick(ANSWERS))
          yield* receiver.script(url, answers)
          const w = yield* act((yield* Webhooks).create(new CreateWebhook({ url, events: ["*"] })))
          space.webhooks.push({ id: w.id, url, secrets: [Redacted.value(w.secret)] })
          return `webhook ${w.id} ${JSON.stringify(answers)}`
        }
        case 6: {
          if (space.webhooks.length === 0) return "skip"
          const w = yield* pick(space.webhooks)
          const rotated = yield* act((yield* Webhooks).rotateSecret(w.id, new RotateWebhookSecret({})))
          w.secrets.push(Redacted.value(rotated.secret))
          return `rotate ${w.id}`
        }
        case 7: {
          if (space.webhooks.length === 0) return "skip"
          const w = space.webhooks.splice(yield* Random.nextIntBetween(0, space.webhooks.length), 1)[0]!
          yield* act((yield* Webhooks).delete(w.id))
          // Its secrets stay known: attempts already under way may still arrive.
          retired.push(w)
          return `delete webhook ${w.id}`
        }
        case 8: {
          // An AI agent that answers (D53): set up once per workspace, then a customer message to it.
          if (space.ai === undefined) {
            const agent = yield* act((yield* Agents).create(
              new CreateAgent({ name: "Bot", auto_reply: true, max_messages_per_session: 1000 })
            ))
            yield* act((yield* KnowledgeBase).create(
              new CreateArticle({
                status: "published",
                translations: [new TranslationInput({ locale: "en", title: "Hours", content: "We open at nine." })]
              })
            ))
            const customer = yield* act((yield* Customers).create(new CreateCustomer({ first_name: "ai" })))
            space.ai = { agent: agent.id, customer: customer.id, conversations: [], asked: 0 }
            return `agent ${agent.id}`
          }
          const desk = space.ai
          if (desk.conversations.length < 3) {
            const c = yield* act((yield* Conversations).create(
              new CreateConversation({ customer_id: desk.customer, assignee_id: desk.agent, assignee_type: "agent" })
            ))
            desk.conversations.push(c.id)
          }
          const conversation = yield* pick(desk.conversations)
          const m = yield* act((yield* Messages).create(
            conversation,
            new CreateMessage({ sender_type: "customer", sender_id: desk.customer, content: "When do you open?" })
          ))
          desk.asked++
          return `ask ${m.id}`
        }
        default: {
          const millis = yield* Random.nextIntBetween(1, 10 * 60_000)
          yield* advanceBy(millis)
          return `advance ${millis}`
        }
      }
    })
    const retired: Array<Space["webhooks"][number]> = []

    const check = Effect.gen(function*() {
      yield* settle
      // Lists: the total equals the rows this workspace has.
      for (const space of spaces) {
        const page = yield* as(space.principal)(
          (yield* Customers).list(new ListCustomers({ per_page: 100 }))
        )
        const rows = space.customers.length + (space.ai === undefined ? 0 : 1)
        if (page.meta.total !== rows || page.data.length !== rows) throw new InvariantBroken("list total equals rows")
        // AI agents (D53): every customer message to the agent is answered, exactly once.
        if (space.ai !== undefined) {
          const replies = yield* as(space.principal)(
            (yield* Messages).list(new ListMessages({ sender_type: "agent", per_page: 1 }))
          )
          if (replies.meta.total !== space.ai.asked) {
            throw new InvariantBroken("every customer message to an auto_reply agent is answered exactly once")
          }
        }
      }
      // Signatures: every request verifies with one of its webhook's secrets (current, or in grace when sent).
      const received = yield* receiver.received
      for (const request of received.slice(checked)) {
        const hook = [...spaces.flatMap((s) => s.webhooks), ...retired].find((w) => w.url === request.url)
        const headers = options.plantBug === "drop-signature"
          ? { ...request.headers, "webhook-signature": "v1,AAAA" }
          : request.headers
        const ok = yield* verify(request.body, headers, hook?.secrets ?? [], { now: request.at }).pipe(
          Effect.as(true),
          Effect.catchAll(() => Effect.succeed(false))
        )
        if (!ok) throw new InvariantBroken("every delivery's signature verifies")
        trace.push(`  sent ${request.at} ${request.url} ${request.answer} ${request.headers["webhook-id"]}`)
      }
      checked = received.length
    })

    for (let i = 1; i <= options.steps; i++) {
      const line = yield* step.pipe(Effect.catchAll((e) => Effect.succeed(`refused ${e._tag}`)))
      trace.push(`${i} ${line}`)
      const broken = yield* check.pipe(
        Effect.orDie,
        Effect.as(undefined),
        Effect.catchAllDefect((d) => d instanceof InvariantBroken ? Effect.succeed(d.message) : Effect.die(d))
      )
      if (broken !== undefined) return { step: i, invariant: broken }
    }
    return undefined
  })

export const simulate = (options: SimulationOptions): Promise<SimulationResult> => {
  const trace: Array<string> = []
  const layer = makeTestEngine(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }).pipe(
    Layer.provide(Layer.setRandom(Random.make(options.seed))),
    Layer.provide(TestContext.TestContext)
  )
  const program: Effect.Effect<SimulationResult, never, TestEngine> = Effect.map(
    Effect.orDie(run(options, trace)),
    (failure) => {
      const text = trace.join("\n") + "\n"
      return failure === undefined
        ? { _tag: "Ok", trace: text, hash: createHash("sha256").update(text).digest("hex") }
        : { _tag: "Failed", ...failure, trace: text }
    }
  )
  return Effect.runPromise(
    Effect.scoped(Effect.provide(program, layer)).pipe(
      Effect.provide(Layer.setRandom(Random.make(options.seed))),
      Effect.provide(TestContext.TestContext),
      // The run's output is its trace and its last line (D54): the dispatcher's line per delivery attempt, thousands
      // of them with receivers failing at random, would bury it. Errors still show.
      Effect.provide(Logger.minimumLogLevel(LogLevel.Error))
    )
  )
}
