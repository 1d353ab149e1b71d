// scratch, not committed
import { Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { RateLimitConfig, RateLimits } from "./src/shared/RateLimits.js"

const N = 50000
const req = HttpServerRequest.fromWeb(new Request("http://x/v1/customers", { headers: { authorization: "Bearer 0190a0a0-0000-7000-8000-000000000001|secret" } }))
const app = Effect.succeed(HttpServerResponse.empty())
const prog = Effect.gen(function*() {
  const ours = yield* RateLimits
  const theirs = yield* RateLimiter.RateLimiter
  const time = (f: () => Effect.Effect<unknown, unknown>) => Effect.gen(function*() {
    const t0 = process.cpuUsage()
    for (let i = 0; i < N; i++) yield* f()
    const d = process.cpuUsage(t0); return (d.user + d.system) / N
  })
  const base = () => app
  const a = () => { const headers: Record<string, string> = {}; return ours.around(req, Date.now(), headers, app) }
  const b = () => Effect.flatMap(theirs.consume({ algorithm: "token-bucket", window: "2 seconds", limit: 1e9, key: "token:0190a0a0-0000-7000-8000-000000000001" }), (r) => { const headers = { "ratelimit": `"default";r=${r.remaining};t=${Math.ceil(r.resetAfter.valueOf() as number)}` }; void headers; return app })
  const res: Record<string, Array<number>> = { base: [], ours: [], platform: [] }
  for (let r = 0; r < 10; r++) { res.base!.push(yield* time(base)); res.ours!.push(yield* time(a)); res.platform!.push(yield* time(b)) }
  for (const [k, v] of Object.entries(res)) { const s = v.slice(2).sort((x, y) => x - y); console.log(k, "min", s[0]!.toFixed(3), "med", s[Math.floor(s.length / 2)]!.toFixed(3), "us/request") }
})
Effect.runSync(prog.pipe(Effect.provide(Layer.mergeAll(RateLimits.layer, RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory)))), Effect.provideService(RateLimitConfig, { perSecond: 1e9, burst: 1e9 })) as Effect.Effect<void>)
