/**
 * A loopback HTTP server (127.0.0.1, a port the system picks) that stands in for a model provider: it records each
 * request (method, path, headers, JSON body) and answers by script, or never answers ("hang") so that a timeout can
 * be tested. Closed with the test's scope.
 */
import { Effect, Ref } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Record<string, unknown>
}

export type Reply = { readonly status: number; readonly body: unknown } | "hang"

/** The reply to the n-th request (from 1). */
export type Script = (n: number, request: Recorded) => Reply

export const providerStub = (script: Script) =>
  Effect.gen(function*() {
    const received = yield* Ref.make<ReadonlyArray<Recorded>>([])
    const server = yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof createServer>>((resume) => {
        const s = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            const recorded: Recorded = {
              method: req.method ?? "",
              path: req.url ?? "",
              headers: req.headers,
              body: text === "" ? {} : JSON.parse(text) as Record<string, unknown>
            }
            const n = Effect.runSync(
              Ref.modify(received, (all) => [all.length + 1, [...all, recorded]] as const)
            )
            const reply = script(n, recorded)
            if (reply === "hang") return
            res.writeHead(reply.status, { "content-type": "application/json" })
            res.end(JSON.stringify(reply.body))
          })
        })
        s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
      }),
      (s) =>
        Effect.callback<void>((resume) => {
          s.closeAllConnections()
          s.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { origin: `http://127.0.0.1:${port}`, received: Ref.get(received) } as const
  })

/** A completed OpenAI Responses API answer whose output text is `text`. */
export const openAiResponse = (text: string, model = "gpt-test-1") => ({
  id: "resp_1",
  object: "response",
  status: "completed",
  created_at: 1_700_000_000,
  error: null,
  incomplete_details: null,
  instructions: null,
  model,
  output: [{
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }]
  }],
  parallel_tool_calls: true,
  tools: [],
  tool_choice: "auto",
  metadata: {},
  temperature: null,
  top_p: null,
  usage: {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15
  }
})

/** An Anthropic Messages API answer with the given content blocks. */
export const anthropicMessage = (content: ReadonlyArray<unknown>, model = "claude-test-1") => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model,
  content,
  stop_reason: content.some((c) => (c as { type: string }).type === "tool_use") ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 }
})
