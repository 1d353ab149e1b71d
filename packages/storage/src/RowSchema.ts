/**
 * `@effect/sql`'s `SqlSchema` helpers with the same signatures, decoding rows and encoding requests
 * synchronously.
 *
 * `SqlSchema` parses through `Schema.decodeUnknown`, the Effect-returning parser, which allows asynchronous
 * transformations and pays for that on every row: profiled, decoding one customer row cost more than running
 * its statement (docs/performance.md). Every row and request schema here is synchronous, so the `Either`
 * parsers do the same work without a fiber step per field. A schema that did need an Effect would fail
 * loudly with a `ParseError` ("cannot be be resolved synchronously") rather than run wrongly.
 */
import { Cause, Effect, Either, type Option, ParseResult, Schema } from "effect"

type Execute<I, R, E> = (request: I) => Effect.Effect<ReadonlyArray<unknown>, E, R>

const encoder = <IA, II>(schema: Schema.Schema<IA, II, never>) => {
  const encode = ParseResult.encodeEither(schema)
  return (request: IA): Either.Either<II, ParseResult.ParseError> =>
    Either.mapLeft(encode(request), (issue) => new ParseResult.ParseError({ issue }))
}

const decoder = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = ParseResult.decodeUnknownEither(schema)
  return (row: unknown): Either.Either<A, ParseResult.ParseError> =>
    Either.mapLeft(decode(row), (issue) => new ParseResult.ParseError({ issue }))
}

/** Every row, decoded. */
export const findAll = <II, IA, AI, A, R, E>(options: {
  readonly Request: Schema.Schema<IA, II, never>
  readonly Result: Schema.Schema<A, AI, never>
  readonly execute: Execute<II, R, E>
}) => {
  const encode = encoder(options.Request)
  const decode = decoder(Schema.Array(options.Result))
  return (request: IA): Effect.Effect<ReadonlyArray<A>, E | ParseResult.ParseError, R> =>
    Effect.flatMap(Effect.flatMap(encode(request), options.execute), decode)
}

/** The first row, if any. */
export const findOne = <II, IA, AI, A, R, E>(options: {
  readonly Request: Schema.Schema<IA, II, never>
  readonly Result: Schema.Schema<A, AI, never>
  readonly execute: Execute<II, R, E>
}) => {
  const encode = encoder(options.Request)
  const decode = decoder(options.Result)
  return (request: IA): Effect.Effect<Option.Option<A>, E | ParseResult.ParseError, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(decode(rows[0]))
    )
}

/** The first row; `NoSuchElementException` when there is none. */
export const single = <II, IA, AI, A, R, E>(options: {
  readonly Request: Schema.Schema<IA, II, never>
  readonly Result: Schema.Schema<A, AI, never>
  readonly execute: Execute<II, R, E>
}) => {
  const encode = encoder(options.Request)
  const decode = decoder(options.Result)
  return (request: IA): Effect.Effect<A, E | ParseResult.ParseError | Cause.NoSuchElementException, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows): Effect.Effect<A, ParseResult.ParseError | Cause.NoSuchElementException> =>
        rows.length === 0 ? Effect.fail(new Cause.NoSuchElementException()) : decode(rows[0])
    )
}
