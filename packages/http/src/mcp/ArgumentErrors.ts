/**
 * Arguments a tool's input schema refuses, answered as a failed tool result like every other failure:
 * `VALIDATION_ERROR: The given data was invalid. <field>: <messages>`, with the field messages the HTTP API's 422
 * gives for the same values. Left to the library, protocol 2025-06-18 answers them with the JSON-RPC invalid-params
 * error instead, which a client may not show the model, and in Effect's words rather than the API's.
 */
import { decodeRequest, ValidationError } from "@support-engine/core"
import { Effect, Layer, type Schema } from "effect"
import { McpSchema, McpServer } from "effect/ai"
import { toToolFailed } from "./ToolAccess.js"

/**
 * The server the toolkits register with, whose tools answer refused arguments as tool results. It wraps only
 * `addTool`: the library decodes a call's arguments inside the handler it registers, and reports a refusal as
 * `InvalidParams`, which here becomes the result.
 */
/** What is read of a toolkit: its tools' names and parameter schemas (which need no services to decode). */
interface ToolParameters {
  readonly tools: Readonly<Record<string, { readonly name: string; readonly parametersSchema: Schema.Codec<unknown> }>>
}

export const argumentErrorsAsResults = (
  toolkits: ReadonlyArray<ToolParameters>
): Layer.Layer<McpServer.McpServer, never, McpServer.McpServer> =>
  Layer.effect(
    McpServer.McpServer,
    Effect.map(McpServer.McpServer, (server) => {
      const decoders = new Map<string, (input: unknown) => Effect.Effect<unknown, ValidationError>>()
      for (const toolkit of toolkits) {
        for (const tool of Object.values(toolkit.tools)) decoders.set(tool.name, decodeRequest(tool.parametersSchema))
      }
      /** The project's messages for `payload`; the library's when the project's decoding finds nothing wrong. */
      const refused = (name: string, payload: unknown, error: McpSchema.InvalidParams) => {
        const decode = decoders.get(name)
        const fallback = new ValidationError({ errors: { arguments: [error.message] } })
        const failure = decode === undefined
          ? Effect.succeed(fallback)
          : Effect.match(decode(payload ?? {}), { onFailure: (e) => e, onSuccess: () => fallback })
        return Effect.map(failure, (validation) =>
          new McpSchema.CallToolResult({
            isError: true,
            content: [{ type: "text", text: toToolFailed(validation).message }]
          }))
      }
      return McpServer.McpServer.of({
        ...server,
        addTool: (options) =>
          server.addTool({
            ...options,
            handle: (payload) =>
              Effect.catchTag(
                options.handle(payload),
                "InvalidParams",
                (error) => refused(options.tool.name, payload, error)
              )
          })
      })
    })
  )
