import { assert, describe, it } from "@effect/vitest"
import {
  AgentAsk,
  Agents,
  AskAgent,
  CreateAgent,
  CreateArticle,
  CreateTrainingData,
  KnowledgeBase,
  PassageIndex,
  Training,
  TrainingWorker,
  TranslationInput,
  UpdateArticle,
  UpdateTrainingData
} from "@support-engine/core"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/** The passage index and the ask service (D53) on each database: retrieval follows the content in its transaction. */
export const aiSuite = (adapter: Adapter) =>
  describe(`AI agents (${adapter.name})`, () => {
    const provide = provideEngine(adapter)
    const drain = Effect.gen(function*() {
      yield* TestClock.adjust(Duration.seconds(1))
      while (yield* (yield* TrainingWorker).processNext) { /* drain */ }
    })

    it.effect("retrieves completed items and published articles of the workspace only, and follows every change", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const training = yield* Training
        const kb = yield* KnowledgeBase
        const index = yield* PassageIndex
        const ask = yield* AgentAsk
        const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot" })).pipe(as(mine.principal))
        const retrieve = (words: ReadonlyArray<string>) =>
          Effect.map(
            index.retrieve(mine.workspace.id, { agentId: agent.id, words, limit: 10 }),
            (ps) => ps.map((p) => [p.citation.type, p.citation.title])
          )
        const item = yield* training.create(
          new CreateTrainingData({ type: "text", title: "Refunds", content: "Refunds take five days." })
        ).pipe(as(mine.principal))
        yield* training.create(new CreateTrainingData({ type: "text", title: "Theirs", content: "Refunds are free." }))
          .pipe(as(theirs.principal))
        assert.deepStrictEqual(yield* retrieve(["refunds"]), [], "queued items are not retrieved")
        yield* drain
        assert.deepStrictEqual(yield* retrieve(["refunds"]), [["training_data", "Refunds"]])
        // A training item has no language: it is found by its words as written, not their stems (D61).
        assert.deepStrictEqual(yield* retrieve(["refunding"]), [])
        // A renamed item is found by its new title, not its old one.
        yield* training.update(item.id, new UpdateTrainingData({ title: "Money back" })).pipe(as(mine.principal))
        assert.deepStrictEqual(yield* retrieve(["money"]), [["training_data", "Money back"]])
        assert.deepStrictEqual(yield* retrieve(["refunds"]), [["training_data", "Money back"]])

        const article = yield* kb.create(
          new CreateArticle({
            translations: [new TranslationInput({ locale: "en", title: "Shipping", content: "We ship worldwide." })]
          })
        ).pipe(as(mine.principal))
        assert.deepStrictEqual(yield* retrieve(["ship"]), [], "drafts are not retrieved")
        yield* kb.update(article.id, new UpdateArticle({ status: "published" })).pipe(as(mine.principal))
        assert.deepStrictEqual(yield* retrieve(["worldwide"]), [["kb_article", "Shipping"]])
        const answered = yield* ask.ask(agent.id, new AskAgent({ question: "Do you ship worldwide?", channel: "chat" }))
          .pipe(as(mine.principal))
        assert.deepStrictEqual([answered.answer, answered.citations.map((c) => c.id)], ["We ship worldwide.", [
          article.id
        ]])
        yield* kb.delete(article.id).pipe(as(mine.principal))
        yield* training.delete(item.id).pipe(as(mine.principal))
        assert.deepStrictEqual(yield* retrieve(["worldwide", "money"]), [], "deleted sources leave the index")
      }).pipe(provide))
  })
