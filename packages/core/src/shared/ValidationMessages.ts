/**
 * Validation messages in plain words (D13, issue 20): `must be at most 2,048 characters`, `must be one of: email,
 * chat`, `is required`, `must be null or a string`. A message names the rule the value broke, never schema
 * syntax, and never repeats the value (it may be a secret or a megabyte of text).
 *
 * Effect's formatters already take a schema's `message` and `missingMessage` annotations; `withPlainMessages`
 * puts one on every node of a request schema, and that annotation reads the failure's `ParseIssue` tree (which
 * member of a union the value matched, which refinement failed, with the bounds its JSON Schema annotation
 * states). So the in-process decoders and HttpApi, which keeps only `ArrayFormatter`'s output of its decode
 * failures, report the same message for the same rule.
 */
import type { ParseResult } from "effect"
import { Option, Predicate, Schema, SchemaAST } from "effect"

const format = (n: number): string => n.toLocaleString("en-US")

const count = (n: number, unit: string): string => `${format(n)} ${unit}${n === 1 ? "" : "s"}`

const jsonSchemaOf = (ast: SchemaAST.AST): Record<string, unknown> => {
  const annotation = SchemaAST.getJSONSchemaAnnotation(ast)
  return Option.isSome(annotation) && Predicate.isRecord(annotation.value) ? annotation.value : {}
}

/** Nouns a node's own annotations imply, more exact than its base type's: `an integer` rather than `a number`. */
const specialNoun = (ast: SchemaAST.AST): string | undefined => {
  const jsonSchema = jsonSchemaOf(ast)
  if (jsonSchema.format === "date-time") return "an RFC 3339 date-time"
  if (jsonSchema.format === "uuid" || ast.annotations[SchemaAST.SchemaIdAnnotationId] === Schema.UUIDSchemaId) {
    return "a UUID"
  }
  if (jsonSchema.format === "email") return "an email address"
  if (jsonSchema.type === "integer") return "an integer"
  return undefined
}

const isAbsent = (ast: SchemaAST.AST): boolean => ast._tag === "UndefinedKeyword" || ast._tag === "VoidKeyword"

const flatten = (types: ReadonlyArray<SchemaAST.AST>): Array<SchemaAST.AST> =>
  types.flatMap((type) => (type._tag === "Union" && specialNoun(type) === undefined ? flatten(type.types) : [type]))

const either = (parts: ReadonlyArray<string>): string =>
  parts.length <= 2 ? parts.join(" or ") : `${parts.slice(0, -1).join(", ")} or ${parts.at(-1)}`

/** `null or one of: email, chat`: null first, then the literals as one list, then the other types. */
const unionNoun = (types: ReadonlyArray<SchemaAST.AST>): string => {
  const members = flatten(types).filter((type) => !isAbsent(type))
  const literals = members.flatMap((type) =>
    type._tag === "Literal" && type.literal !== null ? [String(type.literal)] : []
  )
  const others = members.filter((type) => type._tag !== "Literal").map(noun)
  const parts = [
    ...(members.some((type) => type._tag === "Literal" && type.literal === null) ? ["null"] : []),
    ...(literals.length === 0 ? [] : literals.length === 1 ? [literals[0]!] : [`one of: ${literals.join(", ")}`]),
    ...others
  ]
  return either([...new Set(parts)])
}

/** What a value of `ast` is, as the object of "must be": `a string`, `null or an integer`. */
const noun = (ast: SchemaAST.AST): string => {
  const special = specialNoun(ast)
  if (special !== undefined) return special
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "Literal":
      return ast.literal === null ? "null" : String(ast.literal)
    case "Enums":
      return `one of: ${ast.enums.map(([, value]) => String(value)).join(", ")}`
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "Union":
      return unionNoun(ast.types)
    case "Refinement":
      return noun(ast.from)
    case "Transformation":
      // A class is known by its fields; a parsed literal (`"true"` for true) by what is sent.
      return ast.to._tag === "Declaration" || flatten([ast.from]).every((t) => t._tag === "Literal")
        ? noun(ast.from)
        : noun(ast.to)
    case "Suspend":
      return noun(ast.f())
    default:
      return "a valid value"
  }
}

/** The rule a refinement states, from the bounds in its JSON Schema annotation (Effect's filters all set one). */
const ruleOf = (ast: SchemaAST.Refinement): string | undefined => {
  const { exclusiveMaximum, exclusiveMinimum, maximum, maxItems, maxLength, minimum, minItems, minLength } =
    jsonSchemaOf(ast)
  const isNumber = Predicate.isNumber
  if (isNumber(minLength) && minLength === maxLength) return `must be exactly ${count(minLength, "character")}`
  if (isNumber(maxLength)) return `must be at most ${count(maxLength, "character")}`
  if (isNumber(minLength)) {
    return minLength === 1
      ? "must not be empty"
      : `must be at least ${count(minLength, "character")}`
  }
  if (isNumber(maxItems)) return `must have at most ${count(maxItems, "item")}`
  if (isNumber(minItems)) return `must have at least ${count(minItems, "item")}`
  if (isNumber(minimum) && isNumber(maximum)) return `must be between ${format(minimum)} and ${format(maximum)}`
  if (isNumber(minimum)) return `must be at least ${format(minimum)}`
  if (isNumber(maximum)) return `must be at most ${format(maximum)}`
  if (isNumber(exclusiveMinimum)) return `must be greater than ${format(exclusiveMinimum)}`
  if (isNumber(exclusiveMaximum)) return `must be less than ${format(exclusiveMaximum)}`
  const special = specialNoun(ast)
  if (special !== undefined) return `must be ${special}`
  // A filter of our own (Effect's carry a schema id) may describe what it accepts: "a string without NUL".
  const description = SchemaAST.getDescriptionAnnotation(ast)
  return ast.annotations[SchemaAST.SchemaIdAnnotationId] === undefined && Option.isSome(description)
    ? `must be ${description.value}`
    : undefined
}

/** The message annotation a schema author set on the node, kept aside by `withPlainMessages`. */
const AuthorMessage = Symbol.for("@support-engine/core/ValidationMessages/AuthorMessage")

const isMessageAnnotation = (value: unknown): value is SchemaAST.MessageAnnotation => typeof value === "function"

const authorMessage = (ast: SchemaAST.AST, issue: ParseResult.ParseIssue): string | undefined => {
  const own = ast.annotations[AuthorMessage] ?? ast.annotations[SchemaAST.MessageAnnotationId]
  if (!isMessageAnnotation(own) || own === plainMessage) return undefined
  const result: unknown = own(issue)
  if (typeof result === "string") return result
  return Predicate.isRecord(result) && typeof result.message === "string" ? result.message : undefined
}

/** Whether the value failed for having another type than this schema's, rather than for breaking its rule. */
const isTypeMismatch = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Type":
      return issue.message === undefined
    case "Refinement":
      return issue.kind === "From" && isTypeMismatch(issue.issue)
    case "Transformation":
      return issue.kind !== "Transformation" && isTypeMismatch(issue.issue)
    case "Composite":
      return issue.ast._tag === "Union" && membersOf(issue).every(isTypeMismatch)
    default:
      return false
  }
}

const membersOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]

/**
 * A union reports the complaint of the member whose type the value had (a string over the length of
 * `NullOr(BoundedString(2048))`: `must be at most 2,048 characters`), else which types it accepts.
 */
const unionMessage = (issue: ParseResult.Composite, ast: SchemaAST.Union): string => {
  const specific = [...new Set(membersOf(issue).filter((m) => !isTypeMismatch(m)).map(describe))]
  return specific.length === 1 ? specific[0]! : `must be ${noun(ast)}`
}

/** The plain message of one field's failure. */
export const describe = (issue: ParseResult.ParseIssue): string => {
  switch (issue._tag) {
    case "Missing":
      return "is required"
    case "Unexpected":
    case "Forbidden":
      return "is not allowed"
    case "Pointer":
      return describe(issue.issue)
    case "Type":
      // An optional field's `undefined` member: a JSON client cannot send it, so it has nothing to say.
      if (isAbsent(issue.ast)) return ""
      // A message on a Type issue is a filter's own ("must be an absolute http(s) URL"); Effect's keywords set none.
      return authorMessage(issue.ast, issue) ?? issue.message ?? `must be ${noun(issue.ast)}`
    case "Refinement": {
      const own = authorMessage(issue.ast, issue)
      if (own !== undefined && issue.kind === "Predicate") return own
      if (issue.kind === "From") {
        return issue.issue._tag === "Refinement" ? describe(issue.issue) : `must be ${noun(issue.ast)}`
      }
      const filterMessage = issue.issue._tag === "Type" ? issue.issue.message : undefined
      return filterMessage ?? ruleOf(issue.ast) ?? "is invalid"
    }
    case "Transformation":
      // A failed parse (`"abc"` for a number) says what was expected; Effect's own texts repeat the value.
      return issue.kind === "Transformation" ? `must be ${noun(issue.ast)}` : describe(issue.issue)
    case "Composite":
      return issue.ast._tag === "Union" ? unionMessage(issue, issue.ast) : `must be ${noun(issue.ast)}`
  }
}

/** Nodes whose failures are reported per child (`agent_ids.0`, `customer.email`), not as one message. */
const isContainer = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "TypeLiteral":
    case "TupleType":
    case "Declaration":
      return true
    case "Refinement":
    case "Transformation":
      return isContainer(ast.from)
    case "Union":
      // An optional list or object (`X | undefined`): its items and fields report for themselves.
      return ast.types.some(isContainer)
    default:
      return false
  }
}

/**
 * The `message` annotation of every node: a container lets Effect's formatters go on to its children
 * (`override: false`) and speaks only for itself (not an object, too many items); a field's value speaks for
 * its whole subtree (`override: true`).
 */
const plainMessage: SchemaAST.MessageAnnotation = (issue) => ({
  message: describe(issue),
  override: !("ast" in issue && issue._tag !== "Missing" && isContainer(issue.ast))
})

const missingMessage: SchemaAST.MissingMessageAnnotation = () => "is required"

const messages = (ast: SchemaAST.AST | SchemaAST.PropertySignature): SchemaAST.Annotations => {
  const author = ast.annotations[SchemaAST.MessageAnnotationId]
  return {
    ...ast.annotations,
    ...(author !== undefined && author !== plainMessage ? { [AuthorMessage]: author } : {}),
    [SchemaAST.MessageAnnotationId]: plainMessage,
    [SchemaAST.MissingMessageAnnotationId]: missingMessage
  }
}

/** The node with the plain-message annotations, every other property kept (its identifier included). */
const annotated = <A extends SchemaAST.AST>(ast: A): A =>
  Object.create(Object.getPrototypeOf(ast), {
    ...Object.getOwnPropertyDescriptors(ast),
    annotations: { value: messages(ast), enumerable: true }
  })

const rewrite = (ast: SchemaAST.AST): SchemaAST.AST => {
  if (!isContainer(ast)) return annotated(ast)
  switch (ast._tag) {
    case "TypeLiteral":
      return new SchemaAST.TypeLiteral(
        ast.propertySignatures.map((ps) =>
          new SchemaAST.PropertySignature(ps.name, rewrite(ps.type), ps.isOptional, ps.isReadonly, messages(ps))
        ),
        ast.indexSignatures,
        messages(ast)
      )
    case "TupleType":
      return new SchemaAST.TupleType(
        // A missing required element (`[]` for a non-empty array) is reported at its index, as Effect keys it.
        ast.elements.map((e) =>
          new SchemaAST.OptionalType(rewrite(e.type), e.isOptional, {
            ...e.annotations,
            [SchemaAST.MissingMessageAnnotationId]: () =>
              `must have at least ${count(ast.elements.filter((e) => !e.isOptional).length, "item")}`
          })
        ),
        ast.rest.map((r) => new SchemaAST.Type(rewrite(r.type), r.annotations)),
        ast.isReadonly,
        messages(ast)
      )
    case "Refinement":
      return new SchemaAST.Refinement(rewrite(ast.from), ast.filter, messages(ast))
    case "Transformation":
      return new SchemaAST.Transformation(rewrite(ast.from), rewrite(ast.to), ast.transformation, messages(ast))
    case "Union":
      return SchemaAST.Union.make(ast.types.map(rewrite), messages(ast))
    default:
      return annotated(ast)
  }
}

/**
 * One rewrite per schema: callers such as the Promise API decode with `decodeRequest(X)` on every call, and
 * Effect compiles a decoder once per AST node, so a new node each time would compile it again on every call.
 */
const rewritten = new WeakMap<SchemaAST.AST, SchemaAST.AST>()

/**
 * The same schema reporting its failures in plain words (see the module comment). Decoding is unchanged: only
 * annotations are added, so identifiers, JSON Schema and decoded values (class instances too) stay the same.
 */
export const withPlainMessages = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> => {
  let ast = rewritten.get(schema.ast)
  if (ast === undefined) {
    ast = rewrite(schema.ast)
    rewritten.set(schema.ast, ast)
  }
  return Schema.make(ast)
}
