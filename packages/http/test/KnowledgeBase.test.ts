/** `/v1/kb-articles` end to end: translations, revisions and restore (spec, D32). */
import { assert, layer } from "@effect/vitest"
import { NotFound } from "@support-engine/core"
import { Effect } from "effect"
import { envelope, raw, tenant, testServer } from "./Harness.js"

layer(testServer("kb"), { excludeTestServices: true })("knowledge base", (it) => {
  it.effect("create (201) with translations, get, publish (published_at set), list by status", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.kb.create({
        payload: {
          translations: [
            { locale: "en", title: "Refunds", content: "Five days." },
            { locale: "pt-BR", title: "Reembolsos" }
          ]
        }
      })
      assert.deepStrictEqual([created.status, created.published_at, created.source], ["draft", null, "manual"])
      assert.deepStrictEqual(created.translations.map((t) => [t.locale, t.slug]).sort(), [
        ["en", "refunds"],
        ["pt-BR", "reembolsos"]
      ])
      assert.deepStrictEqual(yield* client.kb.get({ params: { id: created.id } }), created)
      const published = yield* client.kb.update({ params: { id: created.id }, payload: { status: "published" } })
      assert.isNotNull(published.published_at)
      yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "Draft" }] } })
      const list = yield* raw("GET", "/v1/kb-articles?status=published", { token })
      assert.deepStrictEqual((list.body as { data: Array<{ id: string }> }).data.map((a) => a.id), [created.id])
      const duplicate = yield* raw("POST", "/v1/kb-articles", {
        token,
        json: { translations: [{ locale: "en", title: "A" }, { locale: "EN", title: "B" }] }
      })
      assert.strictEqual(duplicate.status, 422)
      assert.deepStrictEqual(Object.keys((duplicate.body as { errors: object }).errors), ["translations.1.locale"])
      const none = yield* raw("POST", "/v1/kb-articles", { token, json: { translations: [] } })
      assert.deepStrictEqual(Object.keys((none.body as { errors: object }).errors), ["translations"])
    }))

  it.effect("PUT a translation: the old text becomes a revision; a new locale is added; bad locale is 422", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const article = yield* client.kb.create({
        payload: { translations: [{ locale: "en", title: "Refunds", content: "Five days." }] }
      })
      const revised = yield* client.kb.putTranslation({
        params: { id: article.id, locale: "en" },
        payload: { content: "Three days." }
      })
      assert.strictEqual(revised.translations[0]!.content, "Three days.")
      const revisions = yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })
      assert.deepStrictEqual(revisions.data.map((r) => [r.locale, r.title, r.content]), [[
        "en",
        "Refunds",
        "Five days."
      ]])
      const added = yield* raw("PUT", `/v1/kb-articles/${article.id}/translations/de`, {
        token,
        json: { title: "Erstattungen" }
      })
      assert.strictEqual(added.status, 200)
      assert.strictEqual((added.body as { translations: Array<unknown> }).translations.length, 2)
      const untitled = yield* raw("PUT", `/v1/kb-articles/${article.id}/translations/fr`, { token, json: {} })
      assert.strictEqual(untitled.status, 422)
      assert.deepStrictEqual(Object.keys((untitled.body as { errors: object }).errors), ["title"])
      const badLocale = yield* raw("PUT", `/v1/kb-articles/${article.id}/translations/not_a_locale!`, {
        token,
        json: { title: "x" }
      })
      assert.strictEqual(badLocale.status, 422)
      assert.deepStrictEqual(Object.keys((badLocale.body as { errors: object }).errors), ["locale"])
    }))

  it.effect("restore (200): the current text is saved as a revision, then replaced; status unchanged (D32)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const article = yield* client.kb.create({
        payload: { status: "published", translations: [{ locale: "en", title: "v1", content: "one" }] }
      })
      yield* client.kb.putTranslation({
        params: { id: article.id, locale: "en" },
        payload: { title: "v2", content: "two" }
      })
      const v1 = (yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })).data[0]!
      const response = yield* raw("POST", `/v1/kb-articles/${article.id}/revisions/${v1.id}/restore`, { token })
      assert.strictEqual(response.status, 200)
      const restored = response.body as { status: string; translations: Array<{ title: string; content: string }> }
      assert.strictEqual(restored.status, "published")
      assert.deepStrictEqual([restored.translations[0]!.title, restored.translations[0]!.content], ["v1", "one"])
      const revisions = yield* client.kb.listRevisions({ params: { id: article.id }, query: {} })
      assert.deepStrictEqual(revisions.data.map((r) => r.title).sort(), ["v1", "v2"])
    }))

  it.effect("restore with a revision of another article is 404, like a missing one (D32)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const a = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "A" }] } })
      const b = yield* client.kb.create({ payload: { translations: [{ locale: "en", title: "B" }] } })
      yield* client.kb.putTranslation({ params: { id: a.id, locale: "en" }, payload: { title: "A2" } })
      const ofA = (yield* client.kb.listRevisions({ params: { id: a.id }, query: {} })).data[0]!
      const wrong = yield* raw("POST", `/v1/kb-articles/${b.id}/revisions/${ofA.id}/restore`, { token })
      assert.strictEqual(wrong.status, 404)
      assert.deepStrictEqual(wrong.body, envelope("Revision not found.", "RESOURCE_NOT_FOUND"))
      const typed = yield* Effect.flip(client.kb.restore({ params: { id: b.id, revisionId: ofA.id } }))
      assert.instanceOf(typed, NotFound)
      const invalid = yield* raw("POST", `/v1/kb-articles/${b.id}/revisions/nope/restore`, { token })
      assert.strictEqual(invalid.status, 422)
      assert.deepStrictEqual(Object.keys((invalid.body as { errors: object }).errors), ["revisionId"])
    }))
})
