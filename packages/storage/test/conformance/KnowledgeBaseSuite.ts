import { assert, describe, it } from "@effect/vitest"
import {
  CreateArticle,
  ListArticles,
  ListRevisions,
  PutTranslation,
  TranslationInput,
  UpdateArticle
} from "@support-engine/core/Article"
import { ArticleId, RevisionId } from "@support-engine/core/Ids"
import { KnowledgeBase } from "@support-engine/core/KnowledgeBase"
import { Transactor } from "@support-engine/core/Transactor"
import { decodeRequest } from "@support-engine/core/Validation"
import { Duration, Effect, TestClock } from "effect"
import { type Adapter, as, engineLayer, makeWorkspace } from "./Harness.js"

const codeOf = <A, E extends { readonly _tag: string; readonly code?: unknown }, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(self), (e) => e.code ?? e._tag)

const article = (translations: Array<ConstructorParameters<typeof TranslationInput>[0]>, extra = {}) =>
  new CreateArticle({ translations: translations.map((t) => new TranslationInput(t)), ...extra })

/** Knowledge base (D21, D22, D32, D33). */
export const knowledgeBaseSuite = (adapter: Adapter) =>
  describe(`KnowledgeBase (${adapter.name})`, () => {
    const provide = Effect.provide(engineLayer(adapter))

    it.effect("creates with translations and derived, unique slugs; defaults; one locale once (D32)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "Reset your password", content: "Steps" }, {
            locale: "nl",
            title: "Wachtwoord herstellen"
          }]))
          assert.deepInclude({ ...a }, {
            status: "draft",
            source: "manual",
            published_at: null,
            category_id: null,
            position: null
          })
          assert.deepStrictEqual(a.translations.map((t) => [t.locale, t.slug, t.content]), [
            ["en", "reset-your-password", "Steps"],
            ["nl", "wachtwoord-herstellen", ""]
          ])
          const b = yield* kb.create(article([{ locale: "en", title: "Reset your password" }], { status: "published" }))
          assert.strictEqual(b.translations[0]!.slug, "reset-your-password-2")
          assert.strictEqual(b.published_at?.epochMillis, 0)
          assert.deepStrictEqual(yield* kb.get(a.id), a)
          const taken = yield* Effect.flip(
            kb.create(article([{ locale: "en", title: "X", slug: "reset-your-password" }]))
          )
          assert.deepStrictEqual(taken._tag === "ValidationError" && Object.keys(taken.errors), ["translations.0.slug"])
          const twice = yield* Effect.flip(
            kb.create(article([{ locale: "en", title: "X" }, { locale: "EN", title: "Y" }]))
          )
          assert.deepStrictEqual(twice._tag === "ValidationError" && Object.keys(twice.errors), [
            "translations.1.locale"
          ])
          assert.strictEqual((yield* kb.list(new ListArticles({}))).meta.total, 2)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("limits and allowed values (D13, D33)", () =>
      Effect.gen(function*() {
        const decode = decodeRequest(CreateArticle)
        const ok = { locale: "pt-BR", title: "t".repeat(255) }
        yield* decode({ translations: [ok], source: "github", status: "published" })
        for (
          const [body, key] of [
            [{ translations: [] }, "translations"],
            [{ translations: [{ ...ok, title: "t".repeat(256) }] }, "translations.0.title"],
            [{ translations: [{ ...ok, locale: "english-long" }] }, "translations.0.locale"],
            [{ translations: [{ ...ok, canonical_url: "nope" }] }, "translations.0.canonical_url"],
            [{ translations: [{ ...ok, noindex: "true" }] }, "translations.0.noindex"],
            [{ translations: [ok], source: "gitlab" }, "source"],
            [{ translations: [ok], status: "archived" }, "status"],
            [{ translations: [ok], position: -1 }, "position"]
          ] as const
        ) {
          const error = yield* Effect.flip(decode(body))
          assert.deepStrictEqual(Object.keys(error.errors), [key], JSON.stringify(body))
        }
      }))

    it.effect("a translation update saves the old text as a revision; a new locale needs a title (D32)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "V1", content: "one", excerpt: "e1" }]))
          yield* TestClock.adjust(Duration.seconds(1))
          const same = yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V1", content: "one" }))
          assert.deepStrictEqual(same, a)
          assert.strictEqual((yield* kb.listRevisions(a.id, new ListRevisions({}))).meta.total, 0)
          const v2 = yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V2", content: "two" }))
          const en = v2.translations.find((t) => t.locale === "en")!
          assert.deepStrictEqual([en.title, en.content, en.excerpt, en.slug], ["V2", "two", "e1", "v1"])
          const revisions = yield* kb.listRevisions(a.id, new ListRevisions({}))
          assert.deepStrictEqual(revisions.data.map((r) => [r.locale, r.title, r.content, r.excerpt]), [[
            "en",
            "V1",
            "one",
            "e1"
          ]])
          const fr = yield* kb.putTranslation(a.id, "fr", new PutTranslation({ title: "Bonjour" }))
          assert.deepStrictEqual(fr.translations.map((t) => t.locale).sort(), ["en", "fr"])
          assert.strictEqual((yield* kb.listRevisions(a.id, new ListRevisions({}))).meta.total, 1)
          const untitled = yield* Effect.flip(kb.putTranslation(a.id, "de", new PutTranslation({ content: "x" })))
          assert.deepStrictEqual(untitled._tag === "ValidationError" && Object.keys(untitled.errors), ["title"])
          const badLocale = yield* Effect.flip(
            kb.putTranslation(a.id, "not a locale", new PutTranslation({ title: "x" }))
          )
          assert.deepStrictEqual(badLocale._tag === "ValidationError" && Object.keys(badLocale.errors), ["locale"])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("restore: current text becomes a revision, the revision's text returns, status and other locales stay", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(
            article([{ locale: "en", title: "V1", content: "one" }, { locale: "nl", title: "NL" }], {
              status: "published"
            })
          )
          yield* TestClock.adjust(Duration.seconds(1))
          yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V2", content: "two" }))
          const [v1] = (yield* kb.listRevisions(a.id, new ListRevisions({}))).data
          yield* TestClock.adjust(Duration.seconds(1))
          const restored = yield* kb.restore(a.id, v1!.id)
          assert.strictEqual(restored.status, "published")
          assert.deepStrictEqual(restored.published_at, a.published_at)
          const en = restored.translations.find((t) => t.locale === "en")!
          assert.deepStrictEqual([en.title, en.content], ["V1", "one"])
          assert.deepStrictEqual(restored.translations.find((t) => t.locale === "nl"), a.translations[1])
          const revisions = yield* kb.listRevisions(a.id, new ListRevisions({}))
          assert.deepStrictEqual(revisions.data.map((r) => [r.title, r.content]), [["V2", "two"], ["V1", "one"]])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a restore that fails after its writes leaves nothing half-written (one transaction)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        const tx = yield* Transactor
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "V1", content: "one" }]))
          yield* kb.putTranslation(a.id, "en", new PutTranslation({ content: "two" }))
          const before = yield* kb.get(a.id)
          const [v1] = (yield* kb.listRevisions(a.id, new ListRevisions({}))).data
          const failed = yield* Effect.flip(tx.withTransaction(
            kb.restore(a.id, v1!.id).pipe(Effect.zipRight(Effect.fail("crash after restore" as const)))
          ))
          assert.strictEqual(failed, "crash after restore")
          assert.deepStrictEqual(yield* kb.get(a.id), before)
          assert.strictEqual((yield* kb.listRevisions(a.id, new ListRevisions({}))).meta.total, 1)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("publishing sets published_at, draft clears it; list filters status (D32)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "A" }]))
          yield* TestClock.adjust(Duration.seconds(3))
          const published = yield* kb.update(a.id, new UpdateArticle({ status: "published", position: 2 }))
          assert.deepStrictEqual([published.published_at?.epochMillis, published.position], [3000, 2])
          assert.strictEqual((yield* kb.list(new ListArticles({ status: "published" }))).meta.total, 1)
          const draft = yield* kb.update(a.id, new UpdateArticle({ status: "draft" }))
          assert.strictEqual(draft.published_at, null)
          assert.strictEqual((yield* kb.list(new ListArticles({ status: "published" }))).meta.total, 0)
          yield* kb.delete(a.id)
          assert.strictEqual(yield* codeOf(kb.get(a.id)), "RESOURCE_NOT_FOUND")
          assert.strictEqual((yield* kb.list(new ListArticles({}))).meta.total, 0)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("another article's or workspace's revision and article are 404 on every operation; read cannot write", () =>
      Effect.gen(function*() {
        const mine = yield* makeWorkspace()
        const theirs = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        const [a, b] = yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "A" }]))
          const b = yield* kb.create(article([{ locale: "en", title: "B" }]))
          yield* kb.putTranslation(b.id, "en", new PutTranslation({ content: "changed" }))
          return [a, b] as const
        }).pipe(as(mine.principal))
        const [revisionOfB] = (yield* kb.listRevisions(b.id, new ListRevisions({})).pipe(as(mine.principal))).data
        assert.strictEqual(
          yield* codeOf(kb.restore(a.id, revisionOfB!.id).pipe(as(mine.principal))),
          "RESOURCE_NOT_FOUND"
        )
        assert.strictEqual(
          yield* codeOf(
            kb.restore(a.id, RevisionId.make("00000000-0000-7000-8000-0000000000cc")).pipe(as(mine.principal))
          ),
          "RESOURCE_NOT_FOUND"
        )
        for (const id of [b.id, ArticleId.make("00000000-0000-7000-8000-0000000000dd")]) {
          for (
            const code of yield* Effect.all([
              codeOf(kb.get(id)),
              codeOf(kb.update(id, new UpdateArticle({ status: "published" }))),
              codeOf(kb.putTranslation(id, "en", new PutTranslation({ title: "x" }))),
              codeOf(kb.listRevisions(id, new ListRevisions({}))),
              codeOf(kb.restore(id, revisionOfB!.id)),
              codeOf(kb.delete(id))
            ]).pipe(as(theirs.principal))
          ) assert.strictEqual(code, "RESOURCE_NOT_FOUND")
        }
        const reader = { ...mine.principal, abilities: ["external-api:read" as const] }
        yield* kb.get(b.id).pipe(as(reader))
        assert.strictEqual(
          yield* codeOf(kb.restore(b.id, revisionOfB!.id).pipe(as(reader))),
          "INSUFFICIENT_TOKEN_ABILITY"
        )
      }).pipe(provide))
  })
