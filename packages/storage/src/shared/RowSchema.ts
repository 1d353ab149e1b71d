/**
 * `@effect/sql`'s `SqlSchema` helpers with the same signatures, decoding rows and encoding requests
 * synchronously.
 *
 * `SqlSchema` parses through `Schema.decodeUnknown`, the Effect-returning parser, which allows asynchronous
 * transformations and pays for that on every row: profiled, decoding one customer row cost more than running
 * its statement (docs/performance.md). Every row and request schema here is synchronous, so the `Either`
 * parsers (`Schema.decodeUnknownEither`, `Schema.encodeEither`) do the same work without a fiber step per
 * field. A schema that did need an Effect would fail with a `ParseError` rather than run wrongly.
 */
import { Cause, Effect, type Option, type ParseResult, Schema } from "effect"

/** What `SqlSchema`'s helpers take: the request schema, the row schema, and the statement for an encoded request. */
export interface Options<IA, II, A, AI, R, E> {
  readonly Request: Schema.Schema<IA, II, never>
  readonly Result: Schema.Schema<A, AI, never>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, E, R>
}

/** Every row, decoded. */
export const findAll = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeEither(options.Request)
  const decode = Schema.decodeUnknownEither(Schema.Array(options.Result))
  return (request: IA): Effect.Effect<ReadonlyArray<A>, E | ParseResult.ParseError, R> =>
    Effect.flatMap(Effect.flatMap(encode(request), options.execute), decode)
}

/** The first row, if any. */
export const findOne = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeEither(options.Request)
  const decode = Schema.decodeUnknownEither(options.Result)
  return (request: IA): Effect.Effect<Option.Option<A>, E | ParseResult.ParseError, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(decode(rows[0]))
    )
}

/** The first row; `NoSuchElementException` when there is none. */
export const single = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeEither(options.Request)
  const decode = Schema.decodeUnknownEither(options.Result)
  return (request: IA): Effect.Effect<A, E | ParseResult.ParseError | Cause.NoSuchElementException, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows): Effect.Effect<A, ParseResult.ParseError | Cause.NoSuchElementException> =>
        rows.length === 0 ? Effect.fail(new Cause.NoSuchElementException()) : decode(rows[0])
    )
}
