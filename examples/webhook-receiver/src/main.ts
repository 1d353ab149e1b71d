/**
 * A webhook receiver that verifies every delivery it gets: both signatures and the timestamp.
 *
 * `pnpm start` (demo): runs an engine in this process on a throw-away SQLite file, with its webhook dispatcher,
 * subscribes this receiver to every event, makes a few changes, prints each delivery as it is verified, and exits.
 *
 * `pnpm start -- --listen [--port 4000]` with `WEBHOOK_SECRET=whsec_…`: the receiver alone, for deliveries from a
 * running engine (`pnpm start` at the repository root, see README.md). Runs until Ctrl-C.
 */
import {
  Conversations,
  CreateConversation,
  CreateCustomer,
  CreateMessage,
  CreateWebhook,
  CreateWorkspace,
  Customers,
  Messages,
  Principal,
  UpdateConversation,
  Webhooks,
  Workspaces
} from "@support-engine/core"
import { supportEngineLayer } from "@support-engine/engine"
import type { WebhookPayload } from "@support-engine/webhooks"
import { Deferred, Duration, Effect, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startReceiver } from "./receiver.js"

const args = process.argv.slice(2).filter((a) => a !== "--")
const option = (name: string) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}

const describe = (p: WebhookPayload) => {
  const data = p.data as { id?: string; message?: { content?: string }; status?: string }
  const detail = data.message?.content ?? data.status ?? data.id ?? ""
  return `${p.occurred_at}  ${p.event.padEnd(40)} ${detail}  (delivery ${p.id}, by ${p.actor.type})`
}

/** The receiver alone, for a running engine. */
const listen = async () => {
  const secret = process.env["WEBHOOK_SECRET"]
  if (secret === undefined || !secret.startsWith("whsec_")) {
    console.error("Set WEBHOOK_SECRET to the webhook's secret (whsec_…), as POST /v1/webhooks returned it.")
    process.exit(2)
  }
  const receiver = await startReceiver({
    host: "127.0.0.1",
    port: Number(option("--port") ?? 4000),
    path: "/webhooks",
    secret: () => secret,
    onDelivery: (payload) => console.log(`verified  ${describe(payload)}`),
    onRefused: (reason) => console.log(`refused   ${reason}`)
  })
  console.log(`Listening on ${receiver.url}; every delivery is verified with the secret. Ctrl-C stops.`)
  process.once("SIGINT", () => void receiver.close().then(() => process.exit(0)))
}

/** An engine in this process, delivering to this receiver. */
const demo = Effect.gen(function*() {
  const expected = 5
  const verified: Array<WebhookPayload> = []
  const done = yield* Deferred.make<void>()
  let secret: string | undefined
  const receiver = yield* Effect.acquireRelease(
    Effect.promise(() =>
      startReceiver({
        host: "127.0.0.1",
        port: 0,
        path: "/webhooks",
        secret: () => secret,
        onDelivery: (payload) => {
          verified.push(payload)
          console.log(`verified  ${describe(payload)}`)
          if (verified.length === expected) Deferred.doneUnsafe(done, Effect.void)
        },
        onRefused: (reason) => console.log(`refused   ${reason}`)
      })
    ),
    (r) => Effect.promise(() => r.close())
  )

  const workspace = yield* (yield* Workspaces).create(new CreateWorkspace({ name: "Receiver demo" }))
  yield* Effect.gen(function*() {
    const webhook = yield* (yield* Webhooks).create(new CreateWebhook({ url: receiver.url, events: ["*"] }))
    secret = Redacted.value(webhook.secret)
    console.log(`Webhook ${webhook.id} → ${receiver.url}`)

    const customer = yield* (yield* Customers).create(
      new CreateCustomer({ email: "ada@example.com", first_name: "Ada" })
    )
    const conversations = yield* Conversations
    const conversation = yield* conversations.create(
      new CreateConversation({ customer_id: customer.id, subject: "Where is my order?" })
    )
    yield* (yield* Messages).create(
      conversation.id,
      new CreateMessage({ sender_type: "customer", sender_id: customer.id, content: "Order 1234 has not arrived." })
    )
    yield* conversations.update(conversation.id, new UpdateConversation({ priority: "high" }))
    yield* conversations.update(conversation.id, new UpdateConversation({ status: "closed" }))
  }).pipe(Effect.provideService(Principal, Principal.system(workspace.id, workspace.organization_id)))

  yield* Deferred.await(done).pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(30),
      orElse: () => Effect.fail(new Error("not every delivery arrived"))
    })
  )
  console.log(`All ${expected} deliveries arrived and verified.`)
})

if (args.includes("--listen")) {
  await listen()
} else {
  const dir = mkdtempSync(join(tmpdir(), "webhook-receiver-demo-"))
  // A receiver on 127.0.0.1 over http is only reachable with private targets allowed: a demo setting.
  const engine = supportEngineLayer({
    databaseUrl: `file:${join(dir, "support.db")}`,
    webhooks: { allowPrivate: true, retryBase: Duration.seconds(1) }
  })
  try {
    await Effect.runPromise(Effect.scoped(demo).pipe(Effect.provide(engine)))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
