/**
 * The base of every model and request class: `Schema.Class`, under the name every model already uses.
 *
 * On Effect 3 this was a faster copy of `Schema.Class` whose constructor compiled its validator once per class (the
 * stock one derived a new one on every `new`). Effect 4's `Schema.Class` compiles its constructor's parser once, so
 * the stock class is used as it is. `new X(props, { disableChecks: true })` skips the field checks of props that
 * were just decoded.
 */
import { Effect, Schema } from "effect"

export const Class = Schema.Class

/**
 * `schema` or null, with null tried first; use it instead of `Schema.NullOr` when `schema` is a declaration (a
 * `DateTime`, a class, a `Schema.declare` guard) or `Unknown`. A union tries its members in order among those the
 * value's runtime type allows, and those allow every type: `Schema.NullOr(schema)` would run each null through
 * `schema` first, building a failure before matching null. Validation messages name null first either way.
 */
export const nullFirst = <S extends Schema.Constraint>(schema: S): Schema.Union<readonly [Schema.Null, S]> =>
  Schema.Union([Schema.Null, schema])

/**
 * A field with a default (Effect 3's `optionalWith(schema, { default })`): optional when the model is made and when
 * it is decoded (absent or `undefined`), always present on the value.
 */
export const withDefault =
  <S extends Schema.Top & Schema.WithoutConstructorDefault>(value: () => S["Type"] & S["~type.make.in"]) =>
  (schema: S): Schema.withDecodingDefaultType<Schema.withConstructorDefault<S>> =>
    Schema.withDecodingDefaultType<Schema.withConstructorDefault<S>>(Effect.sync(value))(
      Schema.withConstructorDefault<S>(Effect.sync(value))(schema)
    )
