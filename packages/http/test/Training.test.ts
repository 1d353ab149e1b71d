/** `/v1/training-data` end to end (D20, D30, D31). */
import { assert, layer } from "@effect/vitest"
import { InvalidAgent, InvalidType, NoUrlsProvided, UrlDiscoveryRequired } from "@support-engine/core"
import { Effect } from "effect"
import { envelope, processed, raw, tenant, testServer } from "./Harness.js"

layer(testServer("training"), { excludeTestServices: true })("training", (it) => {
  it.effect("create text, qa, file and video items (201); they start queued and are processed (D30, D31)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      const text = yield* client.training.create({
        payload: { type: "text", title: "Refunds", content: "Refunds take 5 days.", agent_ids: [agent.id] }
      })
      assert.deepStrictEqual([text.type, text.content, text.status], ["text", "Refunds take 5 days.", "queued"])
      assert.deepStrictEqual(text.agent_ids, [agent.id])
      const qa = yield* raw("POST", "/v1/training-data", {
        token,
        json: { type: "qa", question: "How long?", answer: "Five days." }
      })
      assert.strictEqual(qa.status, 201)
      for (const type of ["file", "video"] as const) {
        const item = yield* client.training.create({ payload: { type, source: `https://example.test/${type}` } })
        assert.strictEqual(item.source, `https://example.test/${type}`)
      }
      const done = yield* processed(client, text.id)
      assert.deepStrictEqual([done.status, done.is_processed], ["completed", true])
      const texts = yield* client.training.list({ query: { type: "text" } })
      assert.deepStrictEqual(texts.data.map((i) => i.id), [text.id])
      assert.strictEqual((yield* raw("GET", "/v1/training-data?status=done", { token })).status, 422)
    }))

  it.effect("type url is 422 URL_DISCOVERY_REQUIRED, an unknown type 400 INVALID_TYPE (D30)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const url = yield* raw("POST", "/v1/training-data", {
        token,
        json: { type: "url", source: "https://example.test" }
      })
      assert.strictEqual(url.status, 422)
      assert.deepStrictEqual(
        url.body,
        envelope("URL training data must be created through the URL process endpoint.", "URL_DISCOVERY_REQUIRED")
      )
      assert.instanceOf(yield* Effect.flip(client.training.create({ payload: { type: "url" } })), UrlDiscoveryRequired)
      const pdf = yield* raw("POST", "/v1/training-data", { token, json: { type: "pdf", content: "x" } })
      assert.strictEqual(pdf.status, 400)
      assert.deepStrictEqual(pdf.body, envelope("Unsupported training data type \"pdf\".", "INVALID_TYPE"))
      assert.instanceOf(yield* Effect.flip(client.training.create({ payload: { type: "pdf" } })), InvalidType)
      const missing = yield* raw("POST", "/v1/training-data", { token, json: { type: "qa", question: "Q?" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(Object.keys((missing.body as { errors: object }).errors), ["answer"])
    }))

  it.effect("400 INVALID_AGENT for an agent of another workspace, on create, process and update (D30)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const other = yield* tenant()
      const foreign = yield* other.client.agents.create({ payload: { name: "Theirs" } })
      const onCreate = yield* raw("POST", "/v1/training-data", {
        token,
        json: { type: "text", content: "x", agent_ids: [foreign.id] }
      })
      assert.strictEqual(onCreate.status, 400)
      assert.strictEqual((onCreate.body as { code: string }).code, "INVALID_AGENT")
      const onProcess = yield* Effect.flip(client.training.processUrls({
        payload: { urls: ["https://example.test"], agent_ids: [foreign.id] }
      }))
      assert.instanceOf(onProcess, InvalidAgent)
      const item = yield* client.training.create({ payload: { type: "text", content: "x" } })
      const onUpdate = yield* raw("PUT", `/v1/training-data/${item.id}`, { token, json: { agent_ids: [foreign.id] } })
      assert.strictEqual(onUpdate.status, 400)
      assert.strictEqual((onUpdate.body as { code: string }).code, "INVALID_AGENT")
      const list = yield* client.training.list({ query: {} })
      assert.strictEqual(list.meta.total, 1)
    }))

  it.effect("update: title, description, agent_ids; metadata is refused (422, spec rule 4); delete (204)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const agent = yield* client.agents.create({ payload: { name: "Bot" } })
      const item = yield* processed(
        client,
        (yield* client.training.create({ payload: { type: "text", content: "x" } })).id
      )
      const updated = yield* client.training.update({
        params: { id: item.id },
        payload: { title: "Refunds", description: null, agent_ids: [agent.id] }
      })
      assert.deepStrictEqual([updated.title, updated.description, updated.agent_ids], ["Refunds", null, [agent.id]])
      const metadata = yield* raw("PUT", `/v1/training-data/${item.id}`, { token, json: { metadata: {} } })
      assert.strictEqual(metadata.status, 422)
      assert.deepStrictEqual((metadata.body as { errors: object }).errors, {
        metadata: ["is prohibited"]
      })
      assert.strictEqual((yield* raw("DELETE", `/v1/training-data/${item.id}`, { token })).status, 204)
      assert.strictEqual((yield* raw("GET", `/v1/training-data/${item.id}`, { token })).status, 404)
    }))

  it.effect("url/process creates one url item per distinct valid URL (201); none valid is 422 NO_URLS_PROVIDED", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const response = yield* raw("POST", "/v1/training-data/url/process", {
        token,
        json: { urls: ["https://Example.test/docs/", "https://example.test/docs", "not a url", "https://other.test"] }
      })
      assert.strictEqual(response.status, 201)
      const items = (response.body as { data: Array<{ type: string; source: string }> }).data
      assert.deepStrictEqual(items.map((i) => i.type), ["url", "url"])
      const none = yield* raw("POST", "/v1/training-data/url/process", { token, json: { urls: ["nope", "ftp://x"] } })
      assert.strictEqual(none.status, 422)
      assert.deepStrictEqual(none.body, envelope("No valid URLs were provided.", "NO_URLS_PROVIDED"))
      assert.instanceOf(yield* Effect.flip(client.training.processUrls({ payload: { urls: [] } })), NoUrlsProvided)
    }))

  it.effect("url/exists answers after normalisation; a missing or invalid url is 422 (D20)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      yield* client.training.processUrls({ payload: { urls: ["https://example.test/docs"] } })
      const exists = yield* client.training.urlExists({ query: { url: "HTTPS://EXAMPLE.test/docs/#intro" } })
      assert.deepStrictEqual(exists, { exists: true })
      const absent = yield* raw(
        "GET",
        `/v1/training-data/url/exists?url=${encodeURIComponent("https://example.test/x")}`,
        {
          token
        }
      )
      assert.deepStrictEqual([absent.status, absent.body], [200, { exists: false }])
      for (const query of ["", "?url=", "?url=ftp%3A%2F%2Fexample.test"]) {
        const invalid = yield* raw("GET", `/v1/training-data/url/exists${query}`, { token })
        assert.strictEqual(invalid.status, 422, query)
        assert.deepStrictEqual(Object.keys((invalid.body as { errors: object }).errors), ["url"], query)
      }
    }))

  it.effect("resync: a processed url item goes back to the queue (200); without completed URLs 422 (D14, D31)", () =>
    Effect.gen(function*() {
      const { client, token } = yield* tenant()
      const created = yield* client.training.processUrls({ payload: { urls: ["https://example.test/docs"] } })
      const url = yield* processed(client, created.data[0]!.id)
      const started = yield* raw("POST", `/v1/training-data/${url.id}/resync-now`, { token })
      assert.strictEqual(started.status, 200)
      assert.deepStrictEqual(started.body, {
        success: true,
        message: "Resync started.",
        data: { training_data_id: url.id, urls_count: 1 }
      })
      const text = yield* client.training.create({ payload: { type: "text", content: "x" } })
      const refused = yield* raw("POST", `/v1/training-data/${text.id}/resync-now`, { token })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.body, {
        success: false,
        message: "This training data has no completed URLs to resync."
      })
      const typed = yield* Effect.flip(client.training.resync({ params: { id: text.id } }))
      assert.strictEqual(typed._tag, "BusinessStateError")
    }))
})
