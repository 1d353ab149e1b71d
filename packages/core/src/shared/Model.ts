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
 * A field with a default (Effect 3's `optionalWith(schema, { default })`): optional when the model is made and when
 * it is decoded (absent or `undefined`), always present on the value.
 */
export const withDefault =
  <S extends Schema.Top & Schema.WithoutConstructorDefault>(value: () => S["Type"] & S["~type.make.in"]) =>
  (schema: S): Schema.withDecodingDefaultType<Schema.withConstructorDefault<S>> =>
    Schema.withDecodingDefaultType<Schema.withConstructorDefault<S>>(Effect.sync(value))(
      Schema.withConstructorDefault<S>(Effect.sync(value))(schema)
    )
