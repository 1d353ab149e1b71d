/** Request schemas of the HTTP face, made from core's request classes so every limit stays defined once. */
import { withPlainMessages } from "@support-engine/core"
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"

/** A `Schema.Class` is `Transformation(struct of its fields, Declaration(instanceof the class))`. */
const isClass = (ast: SchemaAST.AST): ast is SchemaAST.Transformation =>
  ast._tag === "Transformation" && ast.to._tag === "Declaration" &&
  Option.isSome(SchemaAST.getSurrogateAnnotation(ast.to))

/**
 * The same validation with every class, at any depth, replaced by the struct of its fields: a decoded body is
 * plain data and a typed client may send plain objects (a class schema only encodes instances of its class).
 */
const plain = (ast: SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "Transformation":
      return isClass(ast) ? plain(ast.from) : ast
    case "Refinement":
      return new SchemaAST.Refinement(plain(ast.from), ast.filter, ast.annotations)
    case "Union":
      return SchemaAST.Union.make(ast.types.map(plain), ast.annotations)
    case "TupleType":
      return new SchemaAST.TupleType(
        ast.elements.map((e) => new SchemaAST.OptionalType(plain(e.type), e.isOptional, e.annotations)),
        ast.rest.map((r) => new SchemaAST.Type(plain(r.type), r.annotations)),
        ast.isReadonly,
        ast.annotations
      )
    case "TypeLiteral":
      return new SchemaAST.TypeLiteral(
        ast.propertySignatures.map((ps) =>
          new SchemaAST.PropertySignature(ps.name, plain(ps.type), ps.isOptional, ps.isReadonly, ps.annotations)
        ),
        ast.indexSignatures,
        ast.annotations
      )
    default:
      return ast
  }
}

/**
 * Every field error (D13) at the price of the first. The schema decodes as Effect's default does, stopping at the
 * first error; only when that fails does it decode again with `errors: "all"`, for the whole report. A
 * `parseOptions` annotation would put the option on every decode, and Effect's parser merges such options per call
 * (an object spread: a valid path decode cost 1.7 µs with it against 0.37 µs without, docs/performance.md), while
 * most requests are valid. The typed client encodes requests with the same schemas and checks a refused one again
 * the same way (Client.ts).
 */
const reportingEveryError = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> => {
  // Made from the AST, as `payload` is: request schemas read no services, so the second decode is an Either.
  const everyError = ParseResult.decodeUnknownEither(Schema.make<A, I, never>(schema.ast), { errors: "all" })
  return schema.annotations({
    // A new annotation drops the node's identifier (the OpenAPI component's name) unless it is given again.
    ...Option.match(SchemaAST.getIdentifierAnnotation(schema.ast), {
      onNone: () => ({}),
      onSome: (identifier) => ({ identifier })
    }),
    // A failed decode's issue carries the input it was given (`actual`), whatever its kind.
    decodingFallback: (issue) =>
      Either.match(everyError(issue.actual), { onLeft: ParseResult.fail, onRight: ParseResult.succeed })
  })
}

/**
 * A JSON body schema from a core request class: the same fields and limits as plain data, reporting every
 * field error rather than the first, in plain words (D13). Unknown fields are ignored. The class types stay the declared types:
 * the classes carry no methods, so an instance and its plain fields are the same TypeScript type.
 */
export const payload = <A, I>(request: Schema.Schema<A, I> & { readonly identifier: string }): Schema.Schema<A, I> =>
  reportingEveryError(
    withPlainMessages(Schema.make<A, I, never>(plain(request.ast)).annotations({ identifier: request.identifier }))
  )

/** Path or query parameters, every error reported in plain words (D13, core's ValidationMessages.ts). */
export const parameters = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  reportingEveryError(withPlainMessages(Schema.Struct(fields)))

/** `{id}` path parameter: a UUID, or a 422 keyed `id` (D13). */
export const idPath = <A, I extends string>(id: Schema.Schema<A, I>) => parameters({ id })
