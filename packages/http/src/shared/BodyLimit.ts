/**
 * The D7 size rule, shared by both body readers: at most `limit` bytes (413 past it, whatever `Content-Length`
 * claimed). A body that overflows is still drained up to as much again, so the client reads its 413 instead of
 * a reset connection; past that the stream is abandoned.
 */
import { Effect } from "effect"
import { HttpFailure } from "./ErrorResponses.js"

/** Where the next chunk goes, `size` bytes having arrived: kept, counted only, or the end of reading (a 413). */
export const accept = (size: number, limit: number): "keep" | "drain" | "abandon" =>
  size > 2 * limit ? "abandon" : size > limit ? "drain" : "keep"

/** The body once the stream ended: its bytes, or a 413 when it overflowed. */
export const bodyOf = (
  chunks: ReadonlyArray<Uint8Array>,
  size: number,
  limit: number
): Effect.Effect<Buffer, HttpFailure> =>
  size > limit ? Effect.fail(HttpFailure.payloadTooLarge(limit)) : Effect.succeed(Buffer.concat(chunks))
