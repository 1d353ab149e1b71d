/**
 * The base of every model and request class: `Schema.Class` with the same fields, annotations, encoding and
 * constructor checks, but a constructor validator compiled once per class.
 *
 * Why: in effect 3.22, `Schema.Class`'s constructor calls `ParseResult.validateSync(schema)` on every `new`, which
 * derives a fresh type-side AST each time and so misses the parser cache: about 100 µs per `new Customer(...)`
 * against under 2 µs for the construction itself (bench/, docs/performance.md). Every repository read and every
 * service write builds models, so that was the largest single cost of a read. Here the same check runs through a
 * validator compiled on first use; `new X(props, true)` still skips it, as with `Schema.Class`.
 */
import { ParseResult, Schema } from "effect"

type Disable = boolean | { readonly disableValidation?: boolean } | undefined

const disabled = (options: Disable): boolean =>
  typeof options === "boolean" ? options : options?.disableValidation === true

/** What `Schema.Class<Self>(identifier)(fields)` returns. */
type ModelClass<Self, Fields extends Schema.Struct.Fields> = Schema.Class<
  Self,
  Fields,
  Schema.Struct.Encoded<Fields>,
  Schema.Struct.Context<Fields>,
  Schema.Struct.Constructor<Fields>,
  object,
  object
>

export const Class = <Self>(identifier: string) =>
<Fields extends Schema.Struct.Fields>(
  fields: Fields,
  annotations?: Schema.Annotations.Schema<Self>
): ModelClass<Self, Fields> => {
  const Base = Schema.Class<Self>(identifier)(fields, annotations) as unknown as new(
    props: unknown,
    options?: Disable
  ) => object
  let validate: ((input: unknown) => unknown) | undefined
  const Model = class extends Base {
    constructor(props: unknown, options?: Disable) {
      // The base merges field defaults and assigns without validating; the fields are then checked as the base
      // would check them (after defaults), with a validator compiled once for the class.
      super(props, true)
      if (!disabled(options)) {
        validate ??= ParseResult.validateSync(Schema.Struct(fields))
        validate(this)
      }
    }
  }
  return Model as unknown as ModelClass<Self, Fields>
}
