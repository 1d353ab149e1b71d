import { Actor, ApiTokenId, CreateCustomer, CreateWebhook, CreateWorkspace, Customers, DeliveryQueue, Principal, type PrincipalShape, WebhookConfig, Webhooks, Workspaces } from "@support-engine/core"
import { engineLayer } from "@support-engine/storage"
import { DnsHostResolver } from "@support-engine/webhooks"
import { Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"

const dir = mkdtempSync(join(tmpdir(), "fanout-cost-"))
const services = Webhooks.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(Layer.merge(WebhookConfig.layer({ allowPrivate: true }), DnsHostResolver)),
  Layer.provideMerge(engineLayer({ databaseUrl: `file:${join(dir, "c.db")}` }))
)
const runtime = ManagedRuntime.make(services)
const ws = (name: string, hooks: number) => Effect.gen(function*() {
  const created = yield* (yield* Workspaces).create(new CreateWorkspace({ name }))
  const principal: PrincipalShape = { workspaceId: created.id, organizationId: created.organization_id, abilities: ["external-api:write"], actor: Actor.apiToken(ApiTokenId.make(randomUUID())) }
  for (let i = 0; i < hooks; i++) yield* (yield* Webhooks).create(new CreateWebhook({ url: `http://127.0.0.1:9/${i}`, events: ["*"] })).pipe(Effect.provideService(Principal, principal))
  return principal
})
let n = 0
const writes = async (p: PrincipalShape, count: number) => {
  const t = performance.now()
  for (let i = 0; i < count; i++) await runtime.runPromise(Effect.flatMap(Customers, (c) => c.create(new CreateCustomer({ email: `x${n++}@e.com` }))).pipe(Effect.provideService(Principal, p)))
  return (performance.now() - t) / count
}
const batch = Number(process.argv[2] ?? 200)
const fan = async () => {
  const t = performance.now(); let events = 0
  for (;;) { const k = await runtime.runPromise(Effect.flatMap(DeliveryQueue, (q) => q.fanOut(batch))); events += k; if (k === 0) break }
  return { ms: performance.now() - t, events }
}
const main = async () => {
  const a = await runtime.runPromise(ws("A", 20)); const none = await runtime.runPromise(ws("N", 0))
  await writes(none, 300); await writes(a, 300); await fan()
  for (let r = 0; r < 3; r++) {
    const noneMs = await writes(none, 1000)
    const aMs = await writes(a, 1000)
    const f = await fan()
    console.log(`none ${noneMs.toFixed(3)} ms/write; A marker ${aMs.toFixed(3)} ms/write; fan-out ${(f.ms / f.events).toFixed(3)} ms/event (batch ${batch}); ratio ${(noneMs / (aMs + f.ms / f.events)).toFixed(2)}`)
  }
  await runtime.dispose()
}
main()
