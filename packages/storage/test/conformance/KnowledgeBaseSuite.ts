import { assert, describe, it } from "@effect/vitest"
import {
  ArticleId,
  ArticleRepo,
  CreateArticle,
  decodeRequest,
  type EngineError,
  KnowledgeBase,
  ListArticles,
  ListRevisions,
  PersistenceError,
  PutTranslation,
  RevisionId,
  Transactor,
  Translation,
  TranslationInput,
  UpdateArticle
} from "@support-engine/core"
import type { Context } from "effect"
import { Duration, Effect, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { recordedEvents } from "./CustomersSuite.js"
import { type Adapter, as, makeWorkspace, provideEngine } from "./Harness.js"

const codeOf = <A, E extends { readonly _tag: string; readonly code?: unknown }, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(self), (e) => e.code ?? e._tag)

/** The fields a 422 names, or the tag of any other failure. */
const fieldsOf = <A, R>(self: Effect.Effect<A, EngineError, R>) =>
  Effect.map(Effect.flip(self), (e) => (e._tag === "ValidationError" ? Object.keys(e.errors) : e._tag))

const article = (translations: Array<ConstructorParameters<typeof TranslationInput>[0]>, extra = {}) =>
  new CreateArticle({ translations: translations.map((t) => new TranslationInput(t)), ...extra })

const allRevisions = (kb: Context.Service.Shape<typeof KnowledgeBase>, id: ArticleId) =>
  kb.listRevisions(id, new ListRevisions({ per_page: 100 }))

/** Knowledge base (D21, D22, D32, D33, D34). */
export const knowledgeBaseSuite = (adapter: Adapter) =>
  describe(`KnowledgeBase (${adapter.name})`, () => {
    const provide = provideEngine(adapter)

    it.effect("creates with translations and derived, unique slugs; defaults; one locale once; no events (D32, D34)", () =>
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
          assert.deepStrictEqual(
            a.translations.map((t) => [t.locale, t.slug, t.content, t.excerpt, t.seo_title, t.noindex]),
            [["en", "reset-your-password", "Steps", null, null, false], [
              "nl",
              "wachtwoord-herstellen",
              "",
              null,
              null,
              false
            ]]
          )
          const b = yield* kb.create(article([{ locale: "en", title: "Reset your password" }], { status: "published" }))
          assert.strictEqual(b.translations[0]!.slug, "reset-your-password-2")
          assert.strictEqual(b.published_at?.epochMilliseconds, 0)
          // The same slug in another locale is free: slugs are unique per workspace and locale.
          const c = yield* kb.create(article([{ locale: "de", title: "Reset your password" }], { source: "github" }))
          assert.deepStrictEqual([c.translations[0]!.slug, c.source], ["reset-your-password", "github"])
          assert.deepStrictEqual(yield* kb.get(a.id), a)
          assert.deepStrictEqual(
            yield* fieldsOf(kb.create(article([{ locale: "en", title: "X", slug: "reset-your-password" }]))),
            ["translations.0.slug"]
          )
          assert.deepStrictEqual(
            yield* fieldsOf(kb.create(article([{ locale: "en", title: "X" }, { locale: "EN", title: "Y" }]))),
            ["translations.1.locale"]
          )
          assert.strictEqual((yield* kb.list(new ListArticles({}))).meta.total, 3)
          assert.deepStrictEqual(yield* recordedEvents, [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("every limit at its bound and one past it; allowed values; typed fields (D13, D33)", () =>
      Effect.gen(function*() {
        const create = decodeRequest(CreateArticle)
        const ok = { locale: "pt-BR", title: "t" }
        const url = (length: number) => `https://x.io/${"a".repeat(length - 13)}`
        const t = (fields: Record<string, unknown>) => ({ translations: [{ ...ok, ...fields }] })
        const accepted = [
          t({ locale: "abc-defghi", title: "t".repeat(65_535) }),
          t({ slug: "s".repeat(255), content: "c".repeat(65_535), excerpt: "e".repeat(65_535) }),
          t({ seo_title: "s".repeat(65_535), canonical_url: url(2048), og_image_url: url(2048), noindex: true }),
          t({ excerpt: null, seo_title: null, canonical_url: null, og_image_url: null }),
          {
            translations: Array.from(
              { length: 100 },
              (_, i) => ({ locale: `xx-${String(i).padStart(3, "0")}`, title: "t" })
            )
          },
          { ...t({}), position: 0, category_id: null, status: "draft", source: "manual" },
          { ...t({}), position: 2_147_483_647, category_id: "3f0b8a51-0000-4000-8000-000000000000" },
          ...["published", "draft"].map((status) => ({ ...t({}), status })),
          ...["manual", "auto_generated", "mcp", "github"].map((source) => ({ ...t({}), source }))
        ]
        for (const body of accepted) yield* create(body)
        const refused: ReadonlyArray<readonly [unknown, string]> = [
          [{}, "translations"],
          [{ translations: [] }, "translations"],
          [{
            translations: Array.from(
              { length: 101 },
              (_, i) => ({ locale: `xx-${String(i).padStart(3, "0")}`, title: "t" })
            )
          }, "translations"],
          [t({ locale: "abc-defghij" }), "translations.0.locale"],
          [t({ locale: "english" }), "translations.0.locale"],
          [t({ title: "" }), "translations.0.title"],
          [t({ title: "t".repeat(65_536) }), "translations.0.title"],
          [{ translations: [{ locale: "en" }] }, "translations.0.title"],
          [t({ slug: "s".repeat(256) }), "translations.0.slug"],
          [t({ slug: "Not A Slug" }), "translations.0.slug"],
          [t({ content: "c".repeat(65_536) }), "translations.0.content"],
          [t({ excerpt: "e".repeat(65_536) }), "translations.0.excerpt"],
          [t({ seo_title: "s".repeat(65_536) }), "translations.0.seo_title"],
          [t({ canonical_url: url(2049) }), "translations.0.canonical_url"],
          [t({ canonical_url: "nope" }), "translations.0.canonical_url"],
          [t({ og_image_url: "ftp://x.io/a.png" }), "translations.0.og_image_url"],
          [t({ noindex: "true" }), "translations.0.noindex"],
          [t({ content: 5 }), "translations.0.content"],
          [{ ...t({}), source: "gitlab" }, "source"],
          [{ ...t({}), status: "archived" }, "status"],
          [{ ...t({}), position: -1 }, "position"],
          [{ ...t({}), position: 2_147_483_648 }, "position"],
          [{ ...t({}), position: 1.5 }, "position"],
          [{ ...t({}), position: "3" }, "position"],
          [{ ...t({}), category_id: "not-a-uuid" }, "category_id"]
        ]
        for (const [body, key] of refused) {
          const error = yield* Effect.flip(create(body))
          assert.deepStrictEqual(Object.keys(error.errors), [key], JSON.stringify(body).slice(0, 200))
        }

        const update = decodeRequest(UpdateArticle)
        yield* update({})
        yield* update({ category_id: null, position: null, status: "published" })
        for (
          const [body, key] of [[{ status: "archived" }, "status"], [{ position: 2_147_483_648 }, "position"]] as const
        ) {
          assert.deepStrictEqual(Object.keys((yield* Effect.flip(update(body))).errors), [key])
        }

        const put = decodeRequest(PutTranslation)
        yield* put({})
        yield* put({ title: "t".repeat(65_535), slug: "s".repeat(255) })
        for (
          const [body, key] of [
            [{ title: "" }, "title"],
            [{ title: "t".repeat(65_536) }, "title"],
            [{ slug: "s".repeat(256) }, "slug"],
            [{ noindex: 1 }, "noindex"]
          ] as const
        ) assert.deepStrictEqual(Object.keys((yield* Effect.flip(put(body))).errors), [key])

        const list = decodeRequest(ListArticles)
        yield* list({ status: "published", per_page: 100 })
        for (const [body, key] of [[{ status: "archived" }, "status"], [{ per_page: 101 }, "per_page"]] as const) {
          assert.deepStrictEqual(Object.keys((yield* Effect.flip(list(body))).errors), [key])
        }
      }))

    it.effect("a translation update saves the old text as a revision; a new locale needs a title (D22, D32)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "V1", content: "one", excerpt: "e1" }]))
          yield* TestClock.adjust(Duration.seconds(1))
          const same = yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V1", content: "one" }))
          assert.deepStrictEqual(same, a)
          assert.strictEqual((yield* allRevisions(kb, a.id)).meta.total, 0)

          const v2 = yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V2", content: "two" }))
          const en = v2.translations.find((t) => t.locale === "en")!
          // Absent fields stay; the slug stays when the title changes.
          assert.deepStrictEqual([en.title, en.content, en.excerpt, en.slug], ["V2", "two", "e1", "v1"])
          assert.deepStrictEqual([
            en.created_at.epochMilliseconds,
            en.updated_at.epochMilliseconds,
            v2.updated_at.epochMilliseconds
          ], [
            0,
            1000,
            1000
          ])
          const revisions = yield* allRevisions(kb, a.id)
          assert.deepStrictEqual(revisions.data.map((r) => [r.article_id, r.locale, r.title, r.content, r.excerpt]), [
            [a.id, "en", "V1", "one", "e1"]
          ])
          assert.strictEqual(revisions.data[0]!.created_at.epochMilliseconds, 1000)

          // SEO fields alone: updated, no revision (the revision keeps the text).
          const seo = yield* kb.putTranslation(a.id, "en", new PutTranslation({ seo_title: "SEO", noindex: true }))
          assert.deepInclude({ ...seo.translations[0]! }, { seo_title: "SEO", noindex: true, title: "V2" })
          assert.strictEqual((yield* allRevisions(kb, a.id)).meta.total, 1)

          const fr = yield* kb.putTranslation(a.id, "fr", new PutTranslation({ title: "Bonjour" }))
          assert.deepStrictEqual(fr.translations.map((t) => [t.locale, t.slug]), [["en", "v1"], ["fr", "bonjour"]])
          assert.strictEqual((yield* allRevisions(kb, a.id)).meta.total, 1)
          assert.deepStrictEqual(yield* fieldsOf(kb.putTranslation(a.id, "de", new PutTranslation({ content: "x" }))), [
            "title"
          ])
          assert.deepStrictEqual(
            yield* fieldsOf(kb.putTranslation(a.id, "not a locale", new PutTranslation({ title: "x" }))),
            ["locale"]
          )
          const other = yield* kb.create(article([{ locale: "fr", title: "Autre" }]))
          assert.deepStrictEqual(
            yield* fieldsOf(kb.putTranslation(other.id, "fr", new PutTranslation({ slug: "bonjour" }))),
            ["slug"]
          )
          assert.deepStrictEqual(yield* kb.get(other.id), other)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("restore: current text becomes a revision, the revision's text returns, status and other locales stay", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(
            article([{ locale: "en", title: "V1", content: "one", excerpt: "e1" }, { locale: "nl", title: "NL" }], {
              status: "published"
            })
          )
          yield* TestClock.adjust(Duration.seconds(1))
          yield* kb.putTranslation(a.id, "en", new PutTranslation({ title: "V2", content: "two", excerpt: null }))
          yield* kb.putTranslation(a.id, "nl", new PutTranslation({ content: "nl two" }))
          const before = yield* kb.get(a.id)
          const revisions = yield* allRevisions(kb, a.id)
          assert.strictEqual(revisions.meta.total, 2)
          const v1 = revisions.data.find((r) => r.locale === "en")!
          yield* TestClock.adjust(Duration.seconds(1))

          const restored = yield* kb.restore(a.id, v1.id)
          assert.strictEqual(restored.status, "published")
          assert.deepStrictEqual(restored.published_at, a.published_at)
          assert.strictEqual(restored.updated_at.epochMilliseconds, 2000)
          const en = restored.translations.find((t) => t.locale === "en")!
          const enBefore = before.translations.find((t) => t.locale === "en")!
          assert.deepStrictEqual(
            en,
            new Translation({ ...enBefore, title: "V1", content: "one", excerpt: "e1", updated_at: en.updated_at })
          )
          assert.strictEqual(en.updated_at.epochMilliseconds, 2000)
          assert.deepStrictEqual(
            restored.translations.find((t) => t.locale === "nl"),
            before.translations.find((t) => t.locale === "nl")
          )
          assert.deepStrictEqual(yield* kb.get(a.id), restored)

          const after = yield* allRevisions(kb, a.id)
          assert.strictEqual(after.meta.total, (revisions.meta.total ?? 0) + 1)
          assert.deepStrictEqual(after.data.slice(1), revisions.data)
          assert.deepInclude({ ...after.data[0]! }, { locale: "en", title: "V2", content: "two", excerpt: null })
          assert.strictEqual(after.data[0]!.created_at.epochMilliseconds, 2000)
          // The restored revision itself is kept: restoring it again is allowed.
          yield* kb.restore(a.id, v1.id)
          assert.strictEqual((yield* allRevisions(kb, a.id)).meta.total, 4)

          const draft = yield* kb.create(article([{ locale: "en", title: "D" }]))
          yield* kb.putTranslation(draft.id, "en", new PutTranslation({ title: "D2" }))
          const [d1] = (yield* allRevisions(kb, draft.id)).data
          const back = yield* kb.restore(draft.id, d1!.id)
          assert.deepStrictEqual([back.status, back.published_at, back.translations[0]!.title], ["draft", null, "D"])
          assert.deepStrictEqual(yield* recordedEvents, [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("a restore that fails midway or after its writes leaves nothing half-written (one transaction)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        const tx = yield* Transactor
        const revisionsSaved = yield* Ref.make(0)
        // The real repository, except that rewriting a translation fails: restore has saved its revision by then.
        const failingRewrite = Layer.effect(
          ArticleRepo,
          Effect.map(ArticleRepo, (repo) =>
            ArticleRepo.of({
              ...repo,
              insertRevision: (workspaceId, revision) =>
                Effect.andThen(repo.insertRevision(workspaceId, revision), Ref.update(revisionsSaved, (n) => n + 1)),
              updateTranslation: () => Effect.fail(new PersistenceError({ reason: "disk full" }))
            }))
        )
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "V1", content: "one" }]))
          yield* kb.putTranslation(a.id, "en", new PutTranslation({ content: "two" }))
          const before = yield* kb.get(a.id)
          const revisions = yield* allRevisions(kb, a.id)
          const [v1] = revisions.data
          yield* TestClock.adjust(Duration.seconds(1))

          const midway = yield* Effect.flip(
            Effect.flatMap(KnowledgeBase, (broken) => broken.restore(a.id, v1!.id)).pipe(
              // A memo map of its own (v4 shares one between provides): the engine's `KnowledgeBase` is built already.
              Effect.provide(KnowledgeBase.layer.pipe(Layer.provide(failingRewrite)), { local: true })
            )
          )
          assert.deepStrictEqual([midway._tag, yield* Ref.get(revisionsSaved)], ["PersistenceError", 1])
          assert.deepStrictEqual(yield* kb.get(a.id), before)
          assert.deepStrictEqual(yield* allRevisions(kb, a.id), revisions)

          const after = yield* Effect.flip(tx.withTransaction(
            kb.restore(a.id, v1!.id).pipe(Effect.andThen(Effect.fail("crash after restore" as const)))
          ))
          assert.strictEqual(after, "crash after restore")
          assert.deepStrictEqual(yield* kb.get(a.id), before)
          assert.deepStrictEqual(yield* allRevisions(kb, a.id), revisions)
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("publishing sets published_at, draft clears it; present fields only; list filters status (D22, D32)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "A" }], { position: 1 }))
          yield* TestClock.adjust(Duration.seconds(3))
          const published = yield* kb.update(a.id, new UpdateArticle({ status: "published", position: 2 }))
          assert.deepStrictEqual([
            published.published_at?.epochMilliseconds,
            published.position,
            published.updated_at.epochMilliseconds
          ], [
            3000,
            2,
            3000
          ])
          assert.deepStrictEqual(published.translations, a.translations)
          yield* TestClock.adjust(Duration.seconds(1))
          // Publishing a published article again is a no-op: published_at keeps the first publication.
          assert.deepStrictEqual(yield* kb.update(a.id, new UpdateArticle({ status: "published" })), published)
          const moved = yield* kb.update(a.id, new UpdateArticle({ position: null }))
          assert.deepStrictEqual([moved.position, moved.status, moved.published_at?.epochMilliseconds], [
            null,
            "published",
            3000
          ])
          assert.strictEqual((yield* kb.list(new ListArticles({ status: "published" }))).meta.total, 1)
          assert.strictEqual((yield* kb.list(new ListArticles({ status: "draft" }))).meta.total, 0)

          const draft = yield* kb.update(a.id, new UpdateArticle({ status: "draft" }))
          assert.strictEqual(draft.published_at, null)
          assert.strictEqual((yield* kb.list(new ListArticles({ status: "published" }))).meta.total, 0)
          yield* TestClock.adjust(Duration.seconds(1))
          const again = yield* kb.update(a.id, new UpdateArticle({ status: "published" }))
          assert.strictEqual(again.published_at?.epochMilliseconds, 5000)
          assert.deepStrictEqual(yield* kb.get(a.id), again)
          assert.deepStrictEqual(yield* recordedEvents, [])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("lists articles and revisions newest first with exact totals; page edges (D16-D18)", () =>
      Effect.gen(function*() {
        const { principal } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          for (let i = 0; i < 5; i++) {
            yield* kb.create(
              article([{ locale: "en", title: `a${i}` }], { status: i % 2 === 0 ? "published" : "draft" })
            )
            yield* TestClock.adjust(Duration.millis(1))
          }
          const titles = (
            page: { readonly data: ReadonlyArray<{ readonly translations: ReadonlyArray<Translation> }> }
          ) => page.data.map((a) => a.translations[0]!.title)
          const all = yield* kb.list(new ListArticles({}))
          assert.deepStrictEqual(titles(all), ["a4", "a3", "a2", "a1", "a0"])
          assert.deepStrictEqual({ ...all.meta }, {
            current_page: 1,
            from: 1,
            last_page: 1,
            per_page: 15,
            to: 5,
            total: 5,
            next_cursor: null
          })
          const second = yield* kb.list(new ListArticles({ page: 2, per_page: 2 }))
          assert.deepStrictEqual(titles(second), ["a2", "a1"])
          assert.isString(second.meta.next_cursor)
          assert.deepStrictEqual({ ...second.meta }, {
            current_page: 2,
            from: 3,
            last_page: 3,
            per_page: 2,
            to: 4,
            total: 5,
            next_cursor: second.meta.next_cursor
          })
          const published = yield* kb.list(new ListArticles({ status: "published", per_page: 2, page: 2 }))
          assert.deepStrictEqual([titles(published), published.meta.total, published.meta.last_page], [["a0"], 3, 2])
          const past = yield* kb.list(new ListArticles({ page: 9, per_page: 100 }))
          assert.deepStrictEqual([past.data, past.meta.from, past.meta.to, past.meta.total], [[], null, null, 5])

          const target = all.data[0]!
          for (let i = 1; i <= 4; i++) {
            yield* kb.putTranslation(target.id, "en", new PutTranslation({ content: `v${i}` }))
            yield* TestClock.adjust(Duration.millis(1))
          }
          const revisions = yield* kb.listRevisions(target.id, new ListRevisions({ per_page: 3 }))
          assert.deepStrictEqual(revisions.data.map((r) => r.content), ["v3", "v2", "v1"])
          assert.isString(revisions.meta.next_cursor)
          assert.deepStrictEqual({ ...revisions.meta }, {
            current_page: 1,
            from: 1,
            last_page: 2,
            per_page: 3,
            to: 3,
            total: 4,
            next_cursor: revisions.meta.next_cursor
          })
          const rest = yield* kb.listRevisions(target.id, new ListRevisions({ per_page: 3, page: 2 }))
          assert.deepStrictEqual(rest.data.map((r) => r.content), [""])
          const none = yield* kb.listRevisions(all.data[1]!.id, new ListRevisions({}))
          assert.deepStrictEqual([none.data, none.meta.total], [[], 0])
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("delete removes the article with its translations and revisions; their slugs are free again (D21)", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        const repo = yield* ArticleRepo
        yield* Effect.gen(function*() {
          const a = yield* kb.create(article([{ locale: "en", title: "Gone" }, { locale: "fr", title: "Parti" }]))
          yield* kb.putTranslation(a.id, "en", new PutTranslation({ content: "x" }))
          const [revision] = (yield* allRevisions(kb, a.id)).data
          yield* kb.delete(a.id)
          assert.deepStrictEqual(yield* codeOf(kb.get(a.id)), "RESOURCE_NOT_FOUND")
          assert.deepStrictEqual(yield* codeOf(kb.delete(a.id)), "RESOURCE_NOT_FOUND")
          assert.deepStrictEqual(yield* codeOf(kb.listRevisions(a.id, new ListRevisions({}))), "RESOURCE_NOT_FOUND")
          assert.isTrue(Option.isNone(yield* repo.findRevision(workspace.id, revision!.id)))
          assert.deepStrictEqual(yield* repo.slugsLike(workspace.id, "en", "gone", null), [])
          assert.strictEqual((yield* kb.list(new ListArticles({}))).meta.total, 0)
          const b = yield* kb.create(article([{ locale: "en", title: "Gone" }]))
          assert.strictEqual(b.translations[0]!.slug, "gone")
        }).pipe(as(principal))
      }).pipe(provide))

    it.effect("another article's or workspace's revision and article are 404 on every operation; abilities (D10, D11)", () =>
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
        const before = yield* Effect.all([kb.get(a.id), kb.get(b.id), allRevisions(kb, b.id)]).pipe(as(mine.principal))
        const [revisionOfB] = before[2].data
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
          const errors = yield* Effect.all([
            Effect.flip(kb.get(id)),
            Effect.flip(kb.update(id, new UpdateArticle({ status: "published" }))),
            Effect.flip(kb.putTranslation(id, "en", new PutTranslation({ title: "x" }))),
            Effect.flip(kb.putTranslation(id, "fr", new PutTranslation({ title: "x" }))),
            Effect.flip(kb.listRevisions(id, new ListRevisions({}))),
            Effect.flip(kb.restore(id, revisionOfB!.id)),
            Effect.flip(kb.delete(id))
          ]).pipe(as(theirs.principal))
          for (const error of errors) {
            assert.deepStrictEqual([error._tag, error.code], ["NotFound", "RESOURCE_NOT_FOUND"])
          }
        }
        assert.deepStrictEqual((yield* kb.list(new ListArticles({})).pipe(as(theirs.principal))).meta.total, 0)
        assert.deepStrictEqual(
          yield* Effect.all([kb.get(a.id), kb.get(b.id), allRevisions(kb, b.id)]).pipe(as(mine.principal)),
          before
        )

        const reader = { ...mine.principal, abilities: ["external-api:read" as const] }
        yield* Effect.all([kb.get(b.id), kb.list(new ListArticles({})), allRevisions(kb, b.id)]).pipe(as(reader))
        const denied = yield* Effect.all([
          codeOf(kb.create(article([{ locale: "en", title: "R" }]))),
          codeOf(kb.update(b.id, new UpdateArticle({ status: "published" }))),
          codeOf(kb.putTranslation(b.id, "en", new PutTranslation({ title: "R" }))),
          codeOf(kb.restore(b.id, revisionOfB!.id)),
          codeOf(kb.delete(b.id))
        ]).pipe(as(reader))
        assert.deepStrictEqual(denied, Array(5).fill("INSUFFICIENT_TOKEN_ABILITY"))
        const none = { ...mine.principal, abilities: [] }
        const unread = yield* Effect.all([
          codeOf(kb.get(b.id)),
          codeOf(kb.list(new ListArticles({}))),
          codeOf(allRevisions(kb, b.id))
        ]).pipe(as(none))
        assert.deepStrictEqual(unread, Array(3).fill("INSUFFICIENT_TOKEN_ABILITY"))
        assert.deepStrictEqual(
          yield* Effect.all([kb.get(a.id), kb.get(b.id), allRevisions(kb, b.id)]).pipe(as(mine.principal)),
          before
        )
      }).pipe(provide))

    it.effect("concurrent writes: distinct slugs, one translation per locale, a revision for every version", () =>
      Effect.gen(function*() {
        const { principal, workspace } = yield* makeWorkspace()
        const kb = yield* KnowledgeBase
        yield* Effect.gen(function*() {
          const created = yield* Effect.all(
            Array.from({ length: 4 }, () => kb.create(article([{ locale: "en", title: "Race" }]))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(created.map((a) => a.translations[0]!.slug).sort(), [
            "race",
            "race-2",
            "race-3",
            "race-4"
          ])

          const target = created[0]!
          yield* kb.putTranslation(target.id, "en", new PutTranslation({ content: "c0" }))
          yield* Effect.all(
            ["c1", "c2", "c3", "c4"].map((content) =>
              kb.putTranslation(target.id, "en", new PutTranslation({ content }))
            ),
            { concurrency: "unbounded" }
          )
          const final = (yield* kb.get(target.id)).translations[0]!.content
          const saved = (yield* allRevisions(kb, target.id)).data.map((r) => r.content)
          // Each write saw the one before it: the history holds every version exactly once.
          assert.deepStrictEqual([...saved, final].sort(), ["", "c0", "c1", "c2", "c3", "c4"])

          yield* Effect.all(
            ["Un", "Deux"].map((title) => kb.putTranslation(target.id, "fr", new PutTranslation({ title }))),
            { concurrency: "unbounded" }
          )
          const fr = (yield* kb.get(target.id)).translations.filter((t) => t.locale === "fr")
          assert.strictEqual(fr.length, 1)
          const frRevisions = (yield* allRevisions(kb, target.id)).data.filter((r) => r.locale === "fr")
          assert.deepStrictEqual([...frRevisions.map((r) => r.title), fr[0]!.title].sort(), ["Deux", "Un"])
        }).pipe(as(principal))

        // Straight to the port, past the service's choice of a free slug: the unique index refuses.
        const repo = yield* ArticleRepo
        const [first] = (yield* kb.list(new ListArticles({})).pipe(as(principal))).data
        const copy = new Translation({ ...first!.translations[0]!, locale: "en" })
        const other = (yield* kb.create(article([{ locale: "en", title: "Other" }])).pipe(as(principal))).id
        const backstops = yield* Effect.all([
          Effect.flip(repo.updateTranslation(workspace.id, other, copy)),
          Effect.flip(repo.insertTranslation(workspace.id, first!.id, copy))
        ])
        assert.deepStrictEqual(backstops.map((e) => e._tag === "UniqueViolation" ? e.key : e._tag), [
          "kb_article_translations.locale_slug",
          "kb_article_translations.locale_slug"
        ])
      }).pipe(provide))
  })
