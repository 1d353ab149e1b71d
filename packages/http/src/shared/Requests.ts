/** Request schemas of the HTTP face, made from core's request classes so every limit stays defined once. */
import { Schema, SchemaAST } from "effect"

/**
 * The struct of a `Schema.Class`'s fields when `ast` is one: a class is a declaration of its instances whose
 * encoding is the struct of its fields (its one type parameter).
 */
const classFields = (ast: SchemaAST.AST): SchemaAST.Objects | undefined => {
  if (!SchemaAST.isDeclaration(ast) || ast.typeParameters.length !== 1) return undefined
  const fields = ast.typeParameters[0]!
  return SchemaAST.isObjects(fields) && ast.encoding?.[0]?.to === fields ? fields : undefined
}

const mapOrSame = SchemaAST.mapOrSame

/** The annotations of a class that describe it to a reader (the rest belong to its declaration). */
const describing = (ast: SchemaAST.AST) => {
  const annotations = SchemaAST.resolve(ast) ?? {}
  return {
    ...(annotations.identifier === undefined ? {} : { identifier: annotations.identifier }),
    ...(annotations.title === undefined ? {} : { title: annotations.title }),
    ...(annotations.description === undefined ? {} : { description: annotations.description })
  }
}

/**
 * The same validation with every class, at any depth, replaced by the struct of its fields (with the class's
 * name, and its place in the parent: optional or not): a decoded body is plain data and a typed client may send
 * plain objects (a class schema only encodes instances of its class).
 */
const plain = (ast: SchemaAST.AST): SchemaAST.AST => {
  const fields = classFields(ast)
  if (fields !== undefined) {
    const struct = plain(fields)
    if (!SchemaAST.isObjects(struct)) return struct
    const checks = [...(struct.checks ?? []), ...(ast.checks ?? [])]
    return new SchemaAST.Objects(
      struct.propertySignatures,
      struct.indexSignatures,
      { ...struct.annotations, ...describing(ast) },
      checks.length === 0 ? undefined : [checks[0]!, ...checks.slice(1)],
      struct.encoding,
      ast.context,
      struct.encodingChecks
    )
  }
  switch (ast._tag) {
    case "Objects": {
      const properties = mapOrSame(ast.propertySignatures, (property) => {
        const type = plain(property.type)
        return type === property.type ? property : new SchemaAST.PropertySignature(property.name, type)
      })
      return properties === ast.propertySignatures ? ast : new SchemaAST.Objects(
        properties,
        ast.indexSignatures,
        ast.annotations,
        ast.checks,
        ast.encoding,
        ast.context,
        ast.encodingChecks
      )
    }
    case "Arrays": {
      const elements = mapOrSame(ast.elements, plain)
      const rest = mapOrSame(ast.rest, plain)
      return elements === ast.elements && rest === ast.rest ? ast : new SchemaAST.Arrays(
        ast.isMutable,
        elements,
        rest,
        ast.annotations,
        ast.checks,
        ast.encoding,
        ast.context,
        ast.encodingChecks
      )
    }
    case "Union": {
      const types = mapOrSame(ast.types, plain)
      return types === ast.types ? ast : new SchemaAST.Union(
        types,
        ast.options,
        ast.annotations,
        ast.checks,
        ast.encoding,
        ast.context,
        ast.encodingChecks
      )
    }
    case "Suspend":
      return new SchemaAST.Suspend(() => plain(ast.thunk()), ast.annotations, ast.checks, ast.encoding, ast.context)
    default:
      return ast
  }
}

/**
 * A JSON body schema from a core request class: the same fields and limits as plain data, reported in plain words
 * (core's `fieldErrors`).
 * Unknown fields are ignored. The class types stay the declared types: the classes carry no methods, so an instance
 * and its plain fields are the same TypeScript type. Every field error is reported, not the first: the API asks
 * that of all its decoders (`HttpApi.ParseOptions`, Api.ts).
 */
export const payload = <S extends Schema.Top & { readonly identifier: string }>(
  request: S
): Schema.Codec<S["Type"], S["Encoded"]> => Schema.make<Schema.Codec<S["Type"], S["Encoded"]>>(plain(request.ast))

/** Path or query parameters, reported in plain words (core's ValidationMessages.ts). */
export const parameters = <const Fields extends Schema.Struct.Fields>(fields: Fields) => Schema.Struct(fields)

/** `{id}` path parameter: a UUID, or a 422 keyed `id`. */
export const idPath = <S extends Schema.Top>(id: S) => parameters({ id })
