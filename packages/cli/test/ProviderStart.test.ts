/**
 * `serve` from the bundled executable with a remote model provider (D53, D55): it starts, reaches /health, and an
 * agent answers through a loopback stand-in for the provider's API. The bundle must carry everything the provider's
 * model needs at run time (no file loaded beside it, no module it cannot find).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { fetchJson, serve } from "./Harness.js"

const TIMEOUT = 120_000
const ANSWER = "We ship to every country within five days."

/** A completed OpenAI Responses API answer. */
const openAiAnswer = {
  id: "resp_1",
  object: "response",
  status: "completed",
  created_at: 1_700_000_000,
  model: "gpt-test-1",
  output: [{
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: ANSWER, annotations: [] }]
  }],
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 }
}

/** An Anthropic Messages API answer. */
const anthropicAnswer = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test-1",
  content: [{ type: "text", text: ANSWER }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 }
}

/** A loopback server that answers every POST with `body` and records the paths it was called on. */
const providerStub = (body: unknown) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: ReturnType<typeof createServer>; readonly paths: Array<string> }>((resume) => {
      const paths: Array<string> = []
      const server = createServer((req: IncomingMessage, res) => {
        req.resume()
        req.on("end", () => {
          paths.push(req.url ?? "")
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify(body))
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, paths })))
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ paths, server }) => ({
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths
  })))

const providers = [
  {
    name: "openai",
    answer: openAiAnswer,
    path: "/v1/responses",
    env: (origin: string) => ({
      SUPPORT_AI_PROVIDER: "openai",
      SUPPORT_OPENAI_API_KEY: "sk-test-openai",
      SUPPORT_OPENAI_BASE_URL: `${origin}/v1`,
      SUPPORT_DEFAULT_AGENT_MODEL: "gpt-test-1"
    })
  },
  {
    name: "anthropic",
    answer: anthropicAnswer,
    path: "/v1/messages",
    env: (origin: string) => ({
      SUPPORT_AI_PROVIDER: "anthropic",
      SUPPORT_ANTHROPIC_API_KEY: "sk-ant-test",
      SUPPORT_ANTHROPIC_BASE_URL: origin,
      SUPPORT_DEFAULT_AGENT_MODEL: "claude-test-1"
    })
  }
] as const

describe("serve with a remote model provider, from the bundle (D53)", () => {
  for (const provider of providers) {
    it.live(
      `${provider.name}: starts, /health answers, an agent answers through the provider`,
      () =>
        Effect.gen(function*() {
          const stub = yield* providerStub(provider.answer)
          const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "support-engine-ai-" })
          const server = yield* serve({ SUPPORT_DATABASE_URL: `file:${dir}/support.db`, ...provider.env(stub.origin) })
          assert.deepStrictEqual(yield* fetchJson(`${server.baseUrl}/health`), { status: 200, body: { status: "ok" } })

          const token = /^ {2}export SUPPORT_TOKEN='([^']+)'$/m.exec(yield* server.stdout)?.[1]
          assert.isDefined(token)
          const call = (method: string, path: string, body: unknown) =>
            fetchJson(`${server.baseUrl}/v1${path}`, {
              method,
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: JSON.stringify(body)
            })
          const article = yield* call("POST", "/kb-articles", {
            translations: [{ locale: "en", title: "Shipping", content: "We ship worldwide within five days." }]
          })
          assert.strictEqual(article.status, 201, JSON.stringify(article.body))
          const articleId = (article.body as { id: string }).id
          const published = yield* call("PUT", `/kb-articles/${articleId}`, { status: "published" })
          assert.strictEqual(published.status, 200, JSON.stringify(published.body))
          const agent = yield* call("POST", "/agents", { name: "Ada", description: "Answers shipping questions." })
          assert.strictEqual(agent.status, 201, JSON.stringify(agent.body))

          const asked = yield* call("POST", `/agents/${(agent.body as { id: string }).id}/ask`, {
            question: "Do you ship worldwide?",
            channel: "chat"
          })
          assert.strictEqual(asked.status, 200, JSON.stringify(asked.body))
          const { answer, citations, escalation } = asked.body as {
            answer: string
            citations: ReadonlyArray<{ id: string }>
            escalation: unknown
          }
          assert.strictEqual(answer, ANSWER)
          assert.deepStrictEqual(citations.map((citation) => citation.id), [articleId])
          assert.isNull(escalation)
          assert.include(stub.paths, provider.path)
          assert.strictEqual(yield* server.stop, 0)
        }).pipe(Effect.provide(NodeServices.layer)),
      TIMEOUT
    )
  }
})
