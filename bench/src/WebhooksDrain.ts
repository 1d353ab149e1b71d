/**
 * One drain of the webhook phase, in its own process (started with `--expose-gc`, so memory is read after a full
 * collection and nothing of the parent's heap is counted): sends every pending delivery of a seeded SQLite file to
 * the receiver and reports how long that took and the heap and RSS before, during (sampled) and after.
 *
 * - `engine`: `supportEngineLayer` on the file without its dispatcher, then `DispatcherLive` (configured from the
 *   environment, untraced and logging JSON lines, as the standalone server runs it); the clock runs from starting
 *   the dispatcher until no delivery is pending.
 * - `raw-single` / `raw-batch`: the hand-written loop: better-sqlite3 reads the due rows with their event and
 *   webhook, the webhook's secret is decrypted with node:crypto from its stored form (AES-256-GCM under the key file
 *   beside the database, as storage keeps it; once per stored value), the body and both signatures are made with
 *   node:crypto exactly as `Signer.ts` makes them, an undici keep-alive `Pool` posts them with the same number in
 *   flight, and each answered delivery is marked delivered with its attempt record (the durable work at-least-once
 *   delivery asks of the engine): one transaction per delivery, or one per `batch` deliveries. Each attempt writes
 *   its log line, JSON with the fields of the engine's delivery log, in one write per 10 ms as the server's logger
 *   does.
 */
import Database from "better-sqlite3"
import { createDecipheriv, createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { Pool } from "undici"

export type DrainMode = "engine" | "raw-single" | "raw-batch"

export interface DrainRequest {
  readonly mode: DrainMode
  readonly file: string
  readonly count: number
  readonly concurrency: number
  /** Deliveries per transaction in `raw-batch`. */
  readonly batch: number
  readonly sampleMs: number
  /** Run a full collection at 25, 50 and 75% of the drain and report what is live then (the memory drain). */
  readonly collectAtQuarters: boolean
}

export interface MemorySample {
  /** ms since the drain started */
  readonly t: number
  readonly heapUsed: number
  readonly rss: number
  /** deliveries still pending */
  readonly pending: number
}

export interface DrainReport {
  readonly mode: DrainMode
  readonly count: number
  readonly delivered: number
  readonly elapsedMs: number
  readonly perSecond: number
  /** after a full collection, before the drain started */
  readonly before: { readonly heapUsed: number; readonly rss: number }
  readonly samples: ReadonlyArray<MemorySample>
  /** after a full collection at 25, 50 and 75% of the drain, when asked for */
  readonly live: ReadonlyArray<MemorySample>
  /** after a full collection, once every delivery was done */
  readonly after: { readonly heapUsed: number; readonly rss: number }
}

const collect = () => {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { heapUsed: m.heapUsed, rss: m.rss }
}

const openDatabase = (file: string, readonly = false) => {
  const db = new Database(file, { readonly })
  if (!readonly) {
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = NORMAL")
  }
  db.pragma("busy_timeout = 5000")
  return db
}

/**
 * Samples memory and the pending count every `sampleMs` until stopped. With `collectAtQuarters`, the first sample
 * past each quarter of the drain runs a full collection first and is kept in `live`: what is still reachable then,
 * so a backlog that leaked would show as growth from quarter to quarter.
 */
const sampler = (request: DrainRequest, start: number) => {
  const probe = openDatabase(request.file, true)
  const count = probe.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'")
  const samples: Array<MemorySample> = []
  const live: Array<MemorySample> = []
  const take = () => {
    const { n } = count.get() as { n: number }
    const quarter = Math.floor((4 * (request.count - n)) / request.count)
    const collect = request.collectAtQuarters && quarter > live.length && live.length < 3
    if (collect) globalThis.gc?.()
    const m = process.memoryUsage()
    const sample = { t: performance.now() - start, heapUsed: m.heapUsed, rss: m.rss, pending: n }
    samples.push(sample)
    if (collect) live.push(sample)
  }
  const timer = setInterval(take, request.sampleMs)
  return {
    samples,
    live,
    stop: () => {
      clearInterval(timer)
      take()
      probe.close()
    }
  }
}

const engineDrain = async (request: DrainRequest): Promise<DrainReport> => {
  // Loaded here, so that the raw loop's process starts without the engine's module graph.
  const { supportEngineLayer } = await import("@support-engine/engine")
  const { DispatcherLive } = await import("@support-engine/webhooks")
  const { loggingLayer } = await import("@support-engine/http")
  const { Effect, Exit, Layer, ManagedRuntime, Option, References, Scope } = await import("effect")
  // Untraced and logging JSON lines, as the standalone server runs it (http's `Untraced` and `Logging.ts`).
  const runtime = ManagedRuntime.make(
    supportEngineLayer({ databaseUrl: `file:${request.file}`, dispatcher: false }).pipe(
      Layer.provideMerge(loggingLayer({ format: Option.some("json"), level: Option.none() })),
      Layer.provide(Layer.succeed(References.TracerEnabled, false))
    )
  )
  await runtime.runPromise(Effect.void)
  const probe = openDatabase(request.file, true)
  const anyPending = probe.prepare(
    "SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending') AS p"
  )
  const before = collect()
  const scope = Effect.runSync(Scope.make())
  const start = performance.now()
  const sampling = sampler(request, start)
  await runtime.runPromise(Layer.buildWithScope(DispatcherLive, scope))
  while ((anyPending.get() as { p: number }).p === 1) await sleep(10)
  const elapsedMs = performance.now() - start
  sampling.stop()
  const after = collect()
  await runtime.runPromise(Scope.close(scope, Exit.void))
  const delivered = (probe.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get() as {
    n: number
  }).n
  probe.close()
  await runtime.dispose()
  return {
    mode: request.mode,
    count: request.count,
    delivered,
    elapsedMs,
    perSecond: delivered / (elapsedMs / 1000),
    before,
    samples: sampling.samples,
    live: sampling.live,
    after
  }
}

interface DueRow {
  readonly id: string
  readonly workspace_id: string
  readonly webhook_id: string
  readonly attempts: number
  readonly next_attempt_at: string
  readonly url: string
  readonly secret: string
  readonly organization_id: string
  readonly event_id: string
  readonly event: string
  readonly occurred_at: string
  readonly actor_type: string
  readonly actor_id: string | null
  readonly data: string
}

interface Done {
  readonly row: DueRow
  readonly attemptedAt: string
  readonly durationMs: number
  readonly status: number
}

const SECRET_PREFIX = "whsec_"
const PAGE = 500

/**
 * Storage's form of a secret at rest, `v1:<key id>:<nonce>:<ciphertext and tag>`, bound to its webhook, under
 * `SUPPORT_SECRET_KEY` (base64, or 64 hex digits) or else the key file beside the database (docs/configuration.md).
 */
const secretOpener = (file: string) => {
  const text = (process.env["SUPPORT_SECRET_KEY"] ?? readFileSync(`${file}.key`, "utf8")).trim()
  const key = Buffer.from(text, /^[0-9a-f]{64}$/i.test(text) ? "hex" : "base64")
  const opened = new Map<string, string>()
  return (stored: string, webhookId: string): string => {
    let secret = opened.get(stored)
    if (secret === undefined) {
      const [, , nonce, sealed] = stored.split(":")
      const body = Buffer.from(sealed!, "base64url")
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce!, "base64url"), { authTagLength: 16 })
      decipher.setAAD(Buffer.from(`webhook:${webhookId}`, "utf8"))
      decipher.setAuthTag(body.subarray(body.length - 16))
      secret = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8")
      opened.set(stored, secret)
    }
    return secret
  }
}

/** Log lines written together every 10 ms, as the server's JSON logger writes them. */
const lineWriter = () => {
  let lines: Array<string> = []
  const flush = () => {
    if (lines.length === 0) return
    process.stdout.write(`${lines.join("\n")}\n`)
    lines = []
  }
  const timer = setInterval(flush, 10)
  return {
    write: (line: string) => lines.push(line),
    stop: () => {
      clearInterval(timer)
      flush()
    }
  }
}

const rawDrain = async (request: DrainRequest): Promise<DrainReport> => {
  const db = openDatabase(request.file)
  const due = db.prepare(
    `SELECT d.id, d.workspace_id, d.webhook_id, d.attempts, d.next_attempt_at, w.url, w.secret, ws.organization_id, e.id AS event_id, e.event,
       e.occurred_at, e.actor_type, e.actor_id, e.data
     FROM webhook_deliveries d
     JOIN webhooks w ON w.id = d.webhook_id
     JOIN events e ON e.id = d.event_id
     JOIN workspaces ws ON ws.id = d.workspace_id
     WHERE d.status = 'pending' AND w.is_active = 1 AND (d.next_attempt_at, d.id) > (?, ?)
     ORDER BY d.next_attempt_at, d.id LIMIT ?`
  )
  const markDelivered = db.prepare(
    `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, round_attempts = round_attempts + 1,
       next_attempt_at = NULL, last_attempt_at = ?, response_status = ?, last_error = NULL, delivered_at = ?,
       updated_at = ? WHERE id = ?`
  )
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, response_status, error,
       response_excerpt) VALUES (?, ?, ?, ?, ?, NULL, NULL)`
  )
  const mark = db.transaction((done: ReadonlyArray<Done>) => {
    const at = new Date().toISOString()
    for (const d of done) {
      markDelivered.run(d.attemptedAt, d.status, at, at, d.row.id)
      insertAttempt.run(d.row.id, d.row.attempts + 1, d.attemptedAt, Math.round(d.durationMs), d.status)
    }
  })
  const openSecret = secretOpener(request.file)
  const log = lineWriter()
  const keys = new Map<string, Buffer>()
  const standardKey = (secret: string) => {
    let key = keys.get(secret)
    if (key === undefined) {
      key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
      keys.set(secret, key)
    }
    return key
  }

  let page: Array<DueRow> = []
  let index = 0
  let cursor: [string, string] = ["", ""]
  const next = (): DueRow | undefined => {
    if (index === page.length) {
      page = due.all(cursor[0], cursor[1], PAGE) as Array<DueRow>
      index = 0
      if (page.length === 0) return undefined
      const last = page[page.length - 1]!
      cursor = [last.next_attempt_at, last.id]
    }
    return page[index++]
  }

  const first = new URL(
    (db.prepare("SELECT url FROM webhooks LIMIT 1").get() as { url: string }).url
  )
  const pool = new Pool(first.origin, { connections: request.concurrency })
  const batch: Array<Done> = []
  let delivered = 0

  const send = async (row: DueRow) => {
    const started = performance.now()
    const attemptedAt = new Date()
    const body = JSON.stringify({
      event: row.event,
      id: row.id,
      organization_id: row.organization_id,
      data: JSON.parse(row.data) as unknown,
      occurred_at: row.occurred_at.replace(/Z$/, "+00:00"),
      actor: { type: row.actor_type, id: row.actor_id }
    })
    const timestamp = Math.floor(attemptedAt.getTime() / 1000)
    const secret = openSecret(row.secret, row.webhook_id)
    const standard = createHmac("sha256", standardKey(secret)).update(`${row.id}.${timestamp}.`).update(body)
    const url = new URL(row.url)
    const response = await pool.request({
      path: url.pathname,
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "support-engine-webhooks/1",
        "X-Service-Event": row.event,
        "X-Service-Delivery": row.id,
        "X-Service-Event-Id": row.event_id,
        "X-Service-Signature": createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex"),
        "webhook-id": row.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": `v1,${standard.digest("base64")}`
      },
      body
    })
    await response.body.text()
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`status ${response.statusCode}`)
    const done: Done = {
      row,
      attemptedAt: attemptedAt.toISOString(),
      durationMs: performance.now() - started,
      status: response.statusCode
    }
    delivered++
    if (request.mode === "raw-single") {
      mark([done])
    } else {
      batch.push(done)
      if (batch.length >= request.batch) mark(batch.splice(0))
    }
    log.write(JSON.stringify({
      message: "webhook delivery",
      logLevel: "INFO",
      timestamp: new Date().toISOString(),
      annotations: {
        webhook_id: row.webhook_id,
        delivery_id: row.id,
        workspace_id: row.workspace_id,
        event: row.event,
        event_id: row.event_id,
        attempt: row.attempts + 1,
        outcome: "answered",
        status: response.statusCode,
        error: null,
        duration_ms: done.durationMs,
        result: "delivered",
        next_attempt_at: null
      }
    }))
  }

  const before = collect()
  const start = performance.now()
  const sampling = sampler(request, start)
  const worker = async () => {
    for (let row = next(); row !== undefined; row = next()) await send(row)
  }
  await Promise.all(Array.from({ length: request.concurrency }, worker))
  if (batch.length > 0) mark(batch.splice(0))
  log.stop()
  const elapsedMs = performance.now() - start
  sampling.stop()
  const after = collect()
  await pool.close()
  db.close()
  return {
    mode: request.mode,
    count: request.count,
    delivered,
    elapsedMs,
    perSecond: delivered / (elapsedMs / 1000),
    before,
    samples: sampling.samples,
    live: sampling.live,
    after
  }
}

const request = JSON.parse(process.argv[2] ?? "{}") as DrainRequest
const report = request.mode === "engine"
  ? await engineDrain(request)
  : await rawDrain(request)
process.send?.(report, () => process.disconnect())
