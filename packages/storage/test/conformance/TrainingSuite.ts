import { assert, describe, it } from "@effect/vitest"
import {
  AgentId,
  Agents,
  CreateAgent,
  CreateTrainingData,
  CreateTrainingFolder,
  decodeRequest,
  EngineServices,
  IdGenerator,
  ListTrainingData,
  ProcessUrls,
  Training,
  TRAINING_LEASE,
  TrainingDataId,
  TrainingProcessor,
  TrainingRepo,
  TrainingWorker,
  UpdateTrainingData,
  UrlExistsQuery
} from "@support-engine/core"
import { DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, codeOf, makeWorkspace, provideEngine } from "./Harness.js"

/** Training data (D20, D30, D31, D34, D35). */
export const trainingSuite = (adapter: Adapter) =>
  describe(`Training (${adapter.name})`, () => {
    const provide = provideEngine(adapter)
    /** The engine with a processor that fails every item. */
    const failingEngine = EngineServices.pipe(
      Layer.provideMerge(Layer.succeed(TrainingProcessor, {
        process: () => Effect.succeed({ _tag: "Failed", reason: "crawler refused" } as const)
      })),
      Layer.provideMerge(IdGenerator.layer),
      Layer.provideMerge(Layer.suspend(() => adapter.storage())),
      Layer.orDie
    )

    it.effect("creates every type with its content; url, unknown types and foreign agents are refused (D30)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const foreignAgent = yield* (yield* Agents).create(new CreateAgent({ name: "Theirs" })).pipe(
          as(theirs.principal)
        )
        const training = yield* Training
        yield* Effect.gen(function*() {
          const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot" }))
          const text = yield* training.create(
            new CreateTrainingData({ type: "text", title: "FAQ", content: "Hello", agent_ids: [agent.id] })
          )
          assert.deepInclude({ ...text }, {
            type: "text",
            content: "Hello",
            status: "queued",
            is_processed: false,
            source: null
          })
          assert.deepStrictEqual(text.agent_ids, [agent.id])
          assert.match(text.slug, /^faq-[0-9a-f]{8}$/)
          const qa = yield* training.create(new CreateTrainingData({ type: "qa", question: "Q?", answer: "A." }))
          assert.deepStrictEqual([qa.question, qa.answer, qa.content], ["Q?", "A.", null])
          for (const type of ["file", "video"]) {
            const item = yield* training.create(new CreateTrainingData({ type, source: "https://cdn.example.com/x" }))
            assert.strictEqual(item.source, "https://cdn.example.com/x")
          }
          assert.deepStrictEqual(yield* training.get(text.id), text)

          const url = yield* Effect.flip(
            training.create(new CreateTrainingData({ type: "url", source: "https://a.io" }))
          )
          assert.deepInclude({ code: url.code, status: url.status }, { code: "URL_DISCOVERY_REQUIRED", status: 422 })
          const pdf = yield* Effect.flip(training.create(new CreateTrainingData({ type: "pdf", content: "x" })))
          assert.deepInclude({ code: pdf.code, status: pdf.status }, { code: "INVALID_TYPE", status: 400 })
          for (
            const agent_ids of [[foreignAgent.id], [agent.id, AgentId.make("00000000-0000-7000-8000-0000000000aa")]]
          ) {
            const error = yield* Effect.flip(
              training.create(new CreateTrainingData({ type: "text", content: "x", agent_ids }))
            )
            assert.deepInclude({ code: error.code, status: error.status }, { code: "INVALID_AGENT", status: 400 })
          }
          const missing = yield* Effect.flip(training.create(new CreateTrainingData({ type: "qa", question: "Q?" })))
          assert.deepStrictEqual(missing._tag === "ValidationError" && Object.keys(missing.errors), ["answer"])

          const created = (yield* recordedEvents).filter((e) => e.type.startsWith("training."))
          assert.deepStrictEqual(created.map((e) => e.type), [
            "training.created",
            "training.agent.assigned",
            "training.created",
            "training.created",
            "training.created"
          ])
          assert.deepStrictEqual(created[1]!.data, { training_data_id: text.id, agent_ids: [agent.id] })
          assert.strictEqual(created[0]!.data["content"], "Hello")
        }).pipe(as(mine.principal))
      }).pipe(provide))

    it.effect("url/process makes one item per distinct valid URL; none valid is NO_URLS_PROVIDED (D30)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        yield* Effect.gen(function*() {
          const folder = yield* training.createFolder(new CreateTrainingFolder({ name: "Docs" }))
          const items = yield* training.processUrls(
            new ProcessUrls({
              urls: [
                "https://example.com/a",
                "HTTPS://EXAMPLE.com/a/#top",
                "not a url",
                "ftp://x.io",
                "https://example.com/b"
              ],
              training_folder_id: folder.id
            })
          )
          assert.deepStrictEqual(items.map((i) => [i.type, i.source, i.training_folder_id]), [
            ["url", "https://example.com/a", folder.id],
            ["url", "https://example.com/b", folder.id]
          ])
          const none = yield* Effect.flip(training.processUrls(new ProcessUrls({ urls: ["nope", ""] })))
          assert.deepInclude({ code: none.code, status: none.status }, { code: "NO_URLS_PROVIDED", status: 422 })
          const page = yield* training.list(new ListTrainingData({ type: "url" }))
          assert.strictEqual(page.meta.total, 2)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("update: title/description and agent_ids are separate aspects; metadata is refused (D13, D34)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        yield* Effect.gen(function*() {
          const a = yield* (yield* Agents).create(new CreateAgent({ name: "A" }))
          const b = yield* (yield* Agents).create(new CreateAgent({ name: "B" }))
          const item = yield* training.create(new CreateTrainingData({ type: "text", content: "x", agent_ids: [a.id] }))
          const same = yield* training.update(item.id, new UpdateTrainingData({ agent_ids: [a.id], title: null }))
          assert.deepStrictEqual(same, item)
          const both = yield* training.update(item.id, new UpdateTrainingData({ title: "T", agent_ids: [b.id, a.id] }))
          assert.deepStrictEqual([both.title, both.agent_ids], ["T", [b.id, a.id]])
          const onlyAgents = yield* training.update(item.id, new UpdateTrainingData({ agent_ids: [] }))
          assert.deepStrictEqual(onlyAgents.agent_ids, [])
          const events = (yield* recordedEvents).filter((e) => e.type.startsWith("training.")).slice(2)
          assert.deepStrictEqual(events.map((e) => e.type), [
            "training.updated",
            "training.agent.assigned",
            "training.agent.assigned"
          ])
          assert.deepStrictEqual(events[2]!.data, { training_data_id: item.id, agent_ids: [] })
          const refused = yield* Effect.flip(decodeRequest(UpdateTrainingData)({ title: "x", metadata: { a: 1 } }))
          assert.deepStrictEqual(refused.errors, { metadata: ["is prohibited"] })
          assert.strictEqual(
            yield* codeOf(training.update(item.id, new UpdateTrainingData({ agent_ids: [AgentId.make(item.id)] }))),
            "INVALID_AGENT"
          )
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("the worker moves queued → processing → completed with system-actor events and a url's page (D31, D44)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        const worker = yield* TrainingWorker
        const [item] = yield* training.processUrls(new ProcessUrls({ urls: ["https://example.com/docs"] })).pipe(
          as(principal)
        )
        yield* TestClock.adjust(Duration.seconds(1))
        let processed = 0
        while (yield* worker.processNext) processed++
        assert.isAtLeast(processed, 1)
        yield* Effect.gen(function*() {
          const done = yield* training.get(item!.id)
          assert.deepInclude({ ...done }, { status: "completed", is_processed: true })
          assert.strictEqual(done.updated_at.epochMilliseconds, 1000)
          const pages = yield* training.pages(item!.id)
          assert.deepStrictEqual(pages.map((p) => [p.url, p.status]), [["https://example.com/docs", "completed"]])
          const updates = (yield* recordedEvents).filter((e) => e.type === "training.updated")
          assert.deepStrictEqual(updates.map((e) => e.data["status"]), ["processing", "completed"])
          for (const e of updates) assert.deepStrictEqual({ ...e.actor }, { type: "system", id: null })
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a processor failure marks the item failed (D31)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        const item = yield* training.create(new CreateTrainingData({ type: "text", content: "x" })).pipe(as(principal))
        while (yield* (yield* TrainingWorker).processNext) { /* drain */ }
        const failed = yield* training.get(item.id).pipe(as(principal))
        assert.deepInclude({ ...failed }, { status: "failed", is_processed: false })
        const resync = yield* Effect.flip(training.resync(item.id)).pipe(as(principal))
        assert.deepInclude({ _tag: resync._tag, status: resync.status }, { _tag: "BusinessStateError", status: 422 })
      }).pipe(Effect.provide(failingEngine)))

    it.effect("a claim whose worker died is taken over once its lease expires, under TestClock (D31)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        const worker = yield* TrainingWorker
        const item = yield* training.create(new CreateTrainingData({ type: "text", content: "x" })).pipe(as(principal))
        const at = yield* DateTime.now
        // A worker claims the item and dies before finishing it.
        const claimed = yield* (yield* TrainingRepo).claimNext(at, DateTime.addDuration(at, TRAINING_LEASE))
        assert.strictEqual(claimed._tag === "Some" && claimed.value.item.id, item.id)
        assert.isFalse(yield* worker.processNext, "leased to the dead worker")
        yield* TestClock.adjust(Duration.sum(TRAINING_LEASE, Duration.seconds(1)))
        assert.isTrue(yield* worker.processNext)
        assert.strictEqual((yield* training.get(item.id).pipe(as(principal))).status, "completed")
      }).pipe(provide))

    it.effect("the running worker processes on its own: signalled on create (D31)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const training = yield* Training
        const item = yield* training.create(new CreateTrainingData({ type: "text", content: "x" })).pipe(as(principal))
        // The worker fiber does real database I/O: wait for it on the live clock, bounded.
        const status = yield* training.get(item.id).pipe(
          as(principal),
          Effect.map((i) => i.status),
          Effect.filterOrFail((s) => s === "completed", (s) => `still ${s}`),
          Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo({ duration: "10 seconds" }))),
          TestClock.withLive
        )
        assert.strictEqual(status, "completed")
      }).pipe(Effect.provide(TrainingWorker.layer({ pollInterval: Duration.hours(1) })), provide))

    it.effect("resync requeues a url item with completed pages; url exists after normalisation (D20, D31)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const training = yield* Training
        const [item] = yield* training.processUrls(new ProcessUrls({ urls: ["https://Example.com/Help/"] })).pipe(
          as(mine.principal)
        )
        const exists = (url: string) =>
          training.urlExists(new UrlExistsQuery({ url })).pipe(Effect.map((r) => r.exists))
        yield* Effect.gen(function*() {
          assert.isTrue(yield* exists("https://example.com/Help#faq"))
          const early = yield* Effect.flip(training.resync(item!.id))
          assert.strictEqual(early._tag, "BusinessStateError")
          while (yield* (yield* TrainingWorker).processNext) { /* drain */ }
          const started = yield* training.resync(item!.id)
          assert.deepStrictEqual(
            { ...started, data: { ...started.data } },
            { success: true, message: "Resync started.", data: { training_data_id: item!.id, urls_count: 1 } }
          )
          assert.strictEqual((yield* training.get(item!.id)).status, "queued")
          assert.isFalse(yield* exists("https://example.com/other"))
          const bad = yield* Effect.flip(decodeRequest(UrlExistsQuery)({ url: "example.com" }))
          assert.deepStrictEqual(Object.keys(bad.errors), ["url"])
        }).pipe(as(mine.principal))
        assert.isFalse(yield* exists("https://example.com/Help").pipe(as(theirs.principal)))
      }).pipe(provide))

    it.effect("list filters type and status; another workspace is NotFound; read cannot write (D10, D11)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const training = yield* Training
        const item = yield* training.create(new CreateTrainingData({ type: "qa", question: "q", answer: "a" })).pipe(
          as(mine.principal)
        )
        yield* training.create(new CreateTrainingData({ type: "text", content: "c" })).pipe(as(mine.principal))
        const qa = yield* training.list(new ListTrainingData({ type: "qa" })).pipe(as(mine.principal))
        assert.deepStrictEqual([qa.meta.total, qa.data.map((i) => i.id)], [1, [item.id]])
        const queued = yield* training.list(new ListTrainingData({ status: "queued" })).pipe(as(mine.principal))
        assert.strictEqual(queued.meta.total, 2)
        for (const id of [item.id, TrainingDataId.make("00000000-0000-7000-8000-0000000000bb")]) {
          for (
            const code of yield* Effect.all([
              codeOf(training.get(id)),
              codeOf(training.update(id, new UpdateTrainingData({ title: "x" }))),
              codeOf(training.delete(id)),
              codeOf(training.resync(id))
            ]).pipe(as(theirs.principal))
          ) assert.strictEqual(code, "RESOURCE_NOT_FOUND")
        }
        const reader = { ...mine.principal, abilities: ["external-api:read" as const] }
        assert.strictEqual(yield* codeOf(training.delete(item.id).pipe(as(reader))), "INSUFFICIENT_TOKEN_ABILITY")
        yield* training.delete(item.id).pipe(as(mine.principal))
        const last = (yield* recordedEvents.pipe(as(mine.principal))).at(-1)!
        assert.deepStrictEqual([last.type, last.data], ["training.deleted", { id: item.id }])
      }).pipe(provide))
  })
