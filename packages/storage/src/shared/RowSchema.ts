/**
 * `effect/sql`'s `SqlSchema` helpers with the same names and signatures, decoding rows and encoding requests
 * synchronously.
 *
 * `SqlSchema` parses through `Schema.decodeUnknownEffect`, the Effect-returning parser, which allows asynchronous
 * transformations and pays for that on every row: profiled, decoding one customer row cost more than running
 * its statement (docs/performance.md). Every row and request schema here is synchronous, so the `Exit`
 * parsers (`Schema.decodeUnknownExit`, `Schema.encodeExit`) do the same work without a fiber step per
 * field. A schema that did need services cannot be passed (the types ask for none).
 */
import { Cause, Effect, type Option, Schema } from "effect"

/** What `SqlSchema`'s helpers take: the request schema, the row schema, and the statement for an encoded request. */
export interface Options<IA, II, A, AI, R, E> {
  readonly Request: Schema.Codec<IA, II>
  readonly Result: Schema.Codec<A, AI>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, E, R>
}

/** Every row, decoded. */
export const findAll = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeExit(options.Request)
  const decode = Schema.decodeUnknownExit(Schema.Array(options.Result))
  return (request: IA): Effect.Effect<ReadonlyArray<A>, E | Schema.SchemaError, R> =>
    Effect.flatMap(Effect.flatMap(encode(request), options.execute), (rows) => decode(rows))
}

/** The first row, if any. */
export const findOneOption = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeExit(options.Request)
  const decode = Schema.decodeUnknownExit(options.Result)
  return (request: IA): Effect.Effect<Option.Option<A>, E | Schema.SchemaError, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(decode(rows[0]))
    )
}

/** The first row; `NoSuchElementError` when there is none. */
export const findOne = <IA, II, A, AI, R, E>(options: Options<IA, II, A, AI, R, E>) => {
  const encode = Schema.encodeExit(options.Request)
  const decode = Schema.decodeUnknownExit(options.Result)
  return (request: IA): Effect.Effect<A, E | Schema.SchemaError | Cause.NoSuchElementError, R> =>
    Effect.flatMap(
      Effect.flatMap(encode(request), options.execute),
      (rows): Effect.Effect<A, Schema.SchemaError | Cause.NoSuchElementError> =>
        rows.length === 0 ? Effect.fail(new Cause.NoSuchElementError()) : decode(rows[0])
    )
}
