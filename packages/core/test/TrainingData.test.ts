import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeRequest } from "../src/shared/Validation.js"
import {
  CreateTrainingData,
  CreateTrainingFolder,
  ListTrainingData,
  ProcessUrls,
  UpdateTrainingData,
  UrlExistsQuery
} from "../src/training/TrainingData.js"

const agent = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, "0")}`
const agents = (count: number) => Array.from({ length: count }, (_, i) => agent(i))
const url = (length: number) => {
  const prefix = "https://docs.example.com/"
  return prefix + "a".repeat(length - prefix.length)
}
const keys = <A>(self: Effect.Effect<A, { readonly errors: Record<string, unknown> }>) =>
  Effect.map(Effect.flip(self), (e) => Object.keys(e.errors))

/** Training requests (D30, D20): limits at their bound and one past it (D33), strict types (D13). */
describe("Training requests", () => {
  const create = decodeRequest(CreateTrainingData)

  it.effect("type is any string of at most 50 characters: the service decides INVALID_TYPE (D30)", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* create({ type: "x".repeat(50) })).type, "x".repeat(50))
      assert.strictEqual((yield* create({ type: "url" })).type, "url")
      assert.deepStrictEqual(yield* keys(create({ type: "x".repeat(51) })), ["type"])
      assert.deepStrictEqual(yield* keys(create({})), ["type"])
      assert.deepStrictEqual(yield* keys(create({ type: 1 })), ["type"])
    }))

  it.effect("title: null or at most 255 characters; description: null or at most 65,535", () =>
    Effect.gen(function*() {
      yield* create({ type: "text", title: "t".repeat(255), description: "d".repeat(65_535) })
      yield* create({ type: "text", title: null, description: null })
      assert.deepStrictEqual(yield* keys(create({ type: "text", title: "t".repeat(256) })), ["title"])
      assert.deepStrictEqual(yield* keys(create({ type: "text", description: "d".repeat(65_536) })), ["description"])
    }))

  it.effect("content: 1 to 1,048,576 characters; question and answer: 1 to 65,535", () =>
    Effect.gen(function*() {
      yield* create({ type: "text", content: "c".repeat(1_048_576) })
      yield* create({ type: "text", content: "c" })
      assert.deepStrictEqual(yield* keys(create({ type: "text", content: "c".repeat(1_048_577) })), ["content"])
      assert.deepStrictEqual(yield* keys(create({ type: "text", content: "" })), ["content"])
      yield* create({ type: "qa", question: "q".repeat(65_535), answer: "a".repeat(65_535) })
      assert.deepStrictEqual(
        yield* keys(create({ type: "qa", question: "q".repeat(65_536), answer: "" })),
        ["question", "answer"]
      )
    }))

  it.effect("source: an absolute http(s) URL of at most 2,048 characters", () =>
    Effect.gen(function*() {
      yield* create({ type: "file", source: url(2048) })
      assert.deepStrictEqual(yield* keys(create({ type: "file", source: url(2049) })), ["source"])
      assert.deepStrictEqual(yield* keys(create({ type: "video", source: "ftp://docs.example.com/a" })), ["source"])
      assert.deepStrictEqual(yield* keys(create({ type: "video", source: "docs.example.com/a" })), ["source"])
    }))

  it.effect("agent_ids: at most 100 ids; each a UUID; training_folder_id a UUID or null", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* create({ type: "text", agent_ids: agents(100) })).agent_ids?.length, 100)
      assert.deepStrictEqual(yield* keys(create({ type: "text", agent_ids: agents(101) })), ["agent_ids"])
      assert.deepStrictEqual(yield* keys(create({ type: "text", agent_ids: [agent(1), "nope"] })), ["agent_ids.1"])
      yield* create({ type: "text", training_folder_id: null })
      assert.deepStrictEqual(yield* keys(create({ type: "text", training_folder_id: "nope" })), ["training_folder_id"])
    }))

  it.effect("url/process: at most 100 entries of at most 2,048 characters; invalid URLs pass to the service", () =>
    Effect.gen(function*() {
      const process = decodeRequest(ProcessUrls)
      const urls = Array.from({ length: 100 }, () => url(2048))
      yield* process({ urls })
      // Entries that are not URLs are skipped by the service (D30), not refused here.
      yield* process({ urls: ["not a url"] })
      assert.deepStrictEqual(yield* keys(process({ urls: [...urls, url(30)] })), ["urls"])
      assert.deepStrictEqual(yield* keys(process({ urls: [url(30), url(2049)] })), ["urls.1"])
      assert.deepStrictEqual(yield* keys(process({ urls: "https://docs.example.com" })), ["urls"])
      assert.deepStrictEqual(yield* keys(process({})), ["urls"])
    }))

  it.effect("update takes any subset of title, description, agent_ids; metadata is prohibited (D13, D22)", () =>
    Effect.gen(function*() {
      const update = decodeRequest(UpdateTrainingData)
      yield* update({})
      yield* update({ title: null, description: null, agent_ids: [] })
      assert.deepStrictEqual(yield* keys(update({ title: "t".repeat(256) })), ["title"])
      assert.deepStrictEqual(yield* keys(update({ agent_ids: agents(101) })), ["agent_ids"])
      assert.deepStrictEqual(yield* keys(update({ metadata: null })), ["metadata"])
    }))

  it.effect("list filters take only the known types and statuses", () =>
    Effect.gen(function*() {
      const list = decodeRequest(ListTrainingData)
      const query = yield* list({ type: "qa", status: "failed" })
      assert.deepStrictEqual([query.type, query.status], ["qa", "failed"])
      assert.deepStrictEqual(yield* keys(list({ type: "pdf", status: "done" })), ["type", "status"])
    }))

  it.effect("url exists needs an absolute http(s) URL (D20); a folder name is 1 to 255 characters", () =>
    Effect.gen(function*() {
      const exists = decodeRequest(UrlExistsQuery)
      yield* exists({ url: url(2048) })
      assert.deepStrictEqual(yield* keys(exists({ url: url(2049) })), ["url"])
      assert.deepStrictEqual(yield* keys(exists({})), ["url"])
      assert.deepStrictEqual(yield* keys(exists({ url: "docs.example.com" })), ["url"])
      const folder = decodeRequest(CreateTrainingFolder)
      yield* folder({ name: "n".repeat(255) })
      assert.deepStrictEqual(yield* keys(folder({ name: "n".repeat(256) })), ["name"])
      assert.deepStrictEqual(yield* keys(folder({ name: "" })), ["name"])
    }))
})
