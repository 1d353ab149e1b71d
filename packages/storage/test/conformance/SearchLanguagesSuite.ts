import { assert, describe, it } from "@effect/vitest"
import {
  Agents,
  CreateAgent,
  CreateArticle,
  CreateTrainingData,
  KnowledgeBase,
  PassageIndex,
  Training,
  TrainingWorker,
  TranslationInput
} from "@support-engine/core"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

/**
 * The passage index in the content's language (D61): stems where the database has them for that language (English
 * on both; German, French and the other languages PostgreSQL ships on PostgreSQL only), words as written with their
 * diacritics folded everywhere, no stems for a language the database does not know, and English stems for training
 * items (which carry no language) asked in English.
 */
export const searchLanguagesSuite = (adapter: Adapter) =>
  describe(`Passage search by language (${adapter.name})`, () => {
    const provide = provideEngine(adapter)
    const pg = adapter.name === "postgres"

    it.effect("stems English, folds diacritics, and falls back to the words as written (D61)", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        const index = yield* PassageIndex
        const agent = yield* (yield* Agents).create(new CreateAgent({ name: "Bot" })).pipe(as(mine.principal))
        const article = (locale: string, title: string, content: string) =>
          kb.create(
            new CreateArticle({ status: "published", translations: [new TranslationInput({ locale, title, content })] })
          ).pipe(as(mine.principal))
        yield* article("en", "Money back", "We refund every order shipped within thirty days.")
        yield* article("de", "Erstattung", "Die Rückerstattung erfolgt über das Zahlungsmittel.")
        yield* article("fr", "Remboursement", "Le remboursement est effectué sous cinq jours.")
        yield* article("eo", "Repago", "Ni repagas ĉiujn mendojn.")
        yield* (yield* Training).create(
          new CreateTrainingData({ type: "text", title: "Delays", content: "Refunds take five days." })
        ).pipe(as(mine.principal))
        yield* TestClock.adjust(Duration.seconds(1))
        while (yield* (yield* TrainingWorker).processNext) { /* drain */ }

        const find = (words: ReadonlyArray<string>, locale: string | null) =>
          Effect.map(
            index.retrieve(mine.workspace.id, { agentId: agent.id, words, locale, limit: 10 }),
            (ps) => ps.map((p) => p.citation.title).sort()
          )

        // English content, asked in English: stem variants match ("refunds" finds "refund", the training item its own
        // word).
        assert.deepStrictEqual(yield* find(["refunds"], "en"), ["Delays", "Money back"])
        assert.deepStrictEqual(yield* find(["shipping"], "en-GB"), ["Money back"])
        // Training items carry no language: their words as written whatever the question's language, and their
        // English stems for an English question only (English is the one language both databases stem).
        assert.deepStrictEqual(yield* find(["refunding"], "en"), ["Delays", "Money back"])
        assert.deepStrictEqual(yield* find(["refunds"], "fr"), ["Delays"])
        assert.deepStrictEqual(yield* find(["refunding"], "fr"), [])
        assert.deepStrictEqual(yield* find(["refunding"], null), [])
        // Another language, an unknown one or none: the words as written still find the English content.
        assert.deepStrictEqual(yield* find(["refund"], "fr"), ["Money back"])
        assert.deepStrictEqual(yield* find(["refund"], "xx"), ["Money back"])
        assert.deepStrictEqual(yield* find(["refund"], null), ["Money back"])
        assert.deepStrictEqual(yield* find(["shipping"], "xx"), [])
        assert.deepStrictEqual(yield* find(["shipping"], null), [])

        // Diacritics are folded on both sides: with or without them, in the language or not.
        assert.deepStrictEqual(yield* find(["ruckerstattung"], "de"), ["Erstattung"])
        assert.deepStrictEqual(yield* find(["rückerstattung"], "de"), ["Erstattung"])
        assert.deepStrictEqual(yield* find(["ruckerstattung"], null), ["Erstattung"])
        assert.deepStrictEqual(yield* find(["effectue"], "fr"), ["Remboursement"])
        assert.deepStrictEqual(yield* find(["effectué"], null), ["Remboursement"])
        // German and French stems: PostgreSQL ships both configurations, SQLite's FTS5 stems English only.
        assert.deepStrictEqual(yield* find(["zahlungsmittels"], "de"), pg ? ["Erstattung"] : [])
        assert.deepStrictEqual(yield* find(["remboursements"], "fr-CA"), pg ? ["Remboursement"] : [])
        assert.deepStrictEqual(yield* find(["remboursements"], "de"), [])

        // A language neither database stems (Esperanto): exact words only.
        assert.deepStrictEqual(yield* find(["repagas"], "eo"), ["Repago"])
        assert.deepStrictEqual(yield* find(["repagi"], "eo"), [])
        assert.deepStrictEqual(yield* find(["ciujn"], "eo"), ["Repago"])
      }).pipe(provide))
  })
