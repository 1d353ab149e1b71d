/** Request schemas of the HTTP face, made from core's request classes so every limit stays defined once. */
import { withPlainMessages } from "@support-engine/core"
import { Option, Schema, SchemaAST } from "effect"

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
 * A JSON body schema from a core request class: the same fields and limits as plain data, reporting every
 * field error rather than the first, in plain words (D13). Unknown fields are ignored. The class types stay the declared types:
 * the classes carry no methods, so an instance and its plain fields are the same TypeScript type.
 */
export const payload = <A, I>(request: Schema.Schema<A, I> & { readonly identifier: string }): Schema.Schema<A, I> =>
  withPlainMessages(
    Schema.make<A, I, never>(plain(request.ast)).annotations({
      identifier: request.identifier,
      parseOptions: { errors: "all" }
    })
  )

/** Path or query parameters, every error reported in plain words (D13, core's ValidationMessages.ts). */
export const parameters = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  withPlainMessages(Schema.Struct(fields).annotations({ parseOptions: { errors: "all" } }))

/** `{id}` path parameter: a UUID, or a 422 keyed `id` (D13). */
export const idPath = <A, I extends string>(id: Schema.Schema<A, I>) => parameters({ id })
