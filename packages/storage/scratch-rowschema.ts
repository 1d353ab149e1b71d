// scratch, not committed
import { CompanyId, CustomerId, WorkspaceId } from "@support-engine/core"
import { Effect, Schema } from "effect"
import * as SqlSchema from "effect/sql/SqlSchema"
import { DbTimestamp } from "./src/shared/Columns.js"
import * as RowSchema from "./src/shared/RowSchema.js"

const CustomerRow = Schema.Struct({
  id: CustomerId, first_name: Schema.NullOr(Schema.String), last_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String), phone: Schema.NullOr(Schema.String), locale: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String), company_id: Schema.NullOr(CompanyId), avatar_url: Schema.NullOr(Schema.String),
  first_seen_at: DbTimestamp, last_seen_at: DbTimestamp, created_at: DbTimestamp, updated_at: DbTimestamp
})
const row = (i: number) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, first_name: "A", last_name: "B", email: "a@b.c", phone: null, locale: "en", country: "NL", company_id: null, avatar_url: null, first_seen_at: "2024-01-01 00:00:00.000", last_seen_at: "2024-01-01 00:00:00.000", created_at: "2024-01-01 00:00:00.000", updated_at: "2024-01-01 00:00:00.000" })
const Request = Schema.Struct({ workspace_id: WorkspaceId, id: CustomerId })
const req = { workspace_id: WorkspaceId.make("00000000-0000-4000-8000-000000000001"), id: CustomerId.make("00000000-0000-4000-8000-000000000002") }
const one = [row(1)]
const page = Array.from({ length: 15 }, (_, i) => row(i))
const variants = {
  rowOne: RowSchema.findOneOption({ Request, Result: CustomerRow, execute: () => Effect.succeed(one) }),
  sqlOne: SqlSchema.findOneOption({ Request, Result: CustomerRow, execute: () => Effect.succeed(one) }),
  rowAll: RowSchema.findAll({ Request, Result: CustomerRow, execute: () => Effect.succeed(page) }),
  sqlAll: SqlSchema.findAll({ Request, Result: CustomerRow, execute: () => Effect.succeed(page) })
}
const N = 20000
const time = (f: (r: typeof req) => Effect.Effect<unknown, unknown>) => {
  const prog = Effect.gen(function*() { for (let i = 0; i < N; i++) yield* f(req) })
  const t0 = process.cpuUsage(); Effect.runSync(prog as Effect.Effect<void>); const d = process.cpuUsage(t0); return (d.user + d.system) / N
}
const res: Record<string, Array<number>> = {}
for (let r = 0; r < 12; r++) for (const [k, f] of Object.entries(variants)) (res[k] ??= []).push(time(f as never))
for (const [k, v] of Object.entries(res)) { const s = v.slice(2).sort((a, b) => a - b); console.log(k, "min", s[0]!.toFixed(2), "med", s[Math.floor(s.length / 2)]!.toFixed(2), "us/call") }
