/**
 * Speed seam: request bodies on Node read from the request's own events. The platform's `request.stream` runs a
 * `Stream` (a channel, a queue and fibers) for what is one small chunk on almost every request: measured, a
 * tenth of a create's CPU (docs/performance.md). Same rules as the stock reader in JsonBody.ts (BodyLimit.ts);
 * an abandoned request is destroyed, as the platform's stream does when it is abandoned.
 */
import { Effect, FiberRef } from "effect"
import { globalValue } from "effect/GlobalValue"
import type { Readable } from "node:stream"
import { accept, bodyOf } from "./BodyLimit.js"
import { HttpFailure } from "./ErrorResponses.js"

/** The seam's switch, read when `JsonBody` is built: `false` reads every body through the platform (A/B). */
export const NodeBodySeam: FiberRef.FiberRef<boolean> = globalValue(
  Symbol.for("@support-engine/http/NodeBodySeam"),
  () => FiberRef.unsafeMake(true)
)

/** The body of Node's request `source`, at most `limit` bytes. */
export const readNode = (source: Readable, limit: number): Effect.Effect<Buffer, HttpFailure> =>
  Effect.async<Buffer, HttpFailure>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const finish = (result: Effect.Effect<Buffer, HttpFailure>) => {
      stop()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      const next = accept(size, limit)
      if (next === "keep") chunks.push(chunk)
      if (next === "abandon") {
        finish(Effect.fail(HttpFailure.payloadTooLarge(limit)))
        source.destroy()
      }
    }
    const onEnd = () => finish(bodyOf(chunks, size, limit))
    // The client went away or sent a broken stream: there is no body to parse.
    const onBroken = () => finish(Effect.fail(HttpFailure.malformedJson))
    const stop = () => {
      source.off("data", onData).off("end", onEnd).off("error", onBroken).off("close", onBroken)
    }
    if (source.destroyed) return onBroken()
    source.on("data", onData).on("end", onEnd).on("error", onBroken).on("close", onBroken)
    return Effect.sync(stop)
  })
