/**
 * Validation messages in plain words: `must be at most 2,048 characters`, `must be one of: email,
 * chat`, `is required`, `must be null or a string`. A message names the rule the value broke, never schema
 * syntax, and never repeats the value (it may be a secret or a megabyte of text).
 *
 * A failed decode keeps its whole `SchemaIssue` tree (in-process decoders and HttpApi alike), so the messages are
 * read from that tree: which member of a union the value matched, which check failed (Effect's checks state their
 * bounds in their `representation`), which key or item was missing. The schema itself needs nothing added.
 */
import { Predicate, SchemaAST } from "effect"
import type { Schema, SchemaIssue } from "effect"

const format = (n: number): string => n.toLocaleString("en-US")

const count = (n: number, unit: string): string => `${format(n)} ${unit}${n === 1 ? "" : "s"}`

/** Every check of a node, the members of check groups included. */
const checksOf = (ast: SchemaAST.AST): Array<SchemaAST.Filter<unknown>> => {
  const out: Array<SchemaAST.Filter<unknown>> = []
  const add = (checks: ReadonlyArray<SchemaAST.Check<unknown>>): void => {
    for (const check of checks) {
      if (check._tag === "FilterGroup") add(check.checks)
      else out.push(check)
    }
  }
  add(ast.checks ?? [])
  return out
}

const representationId = (filter: SchemaAST.Filter<unknown>): string | undefined =>
  filter.annotations?.representation?.id

const hasCheck = (ast: SchemaAST.AST, name: string): boolean =>
  checksOf(ast).some((check) => representationId(check) === `effect/schema/${name}`)

const formatOf = (ast: SchemaAST.AST): unknown =>
  ast.annotations?.format ?? SchemaAST.toEncoded(ast).annotations?.format

/** Nouns a node's own checks and annotations imply, more exact than its base type's: `an integer`, not `a number`. */
const specialNoun = (ast: SchemaAST.AST): string | undefined => {
  const format = formatOf(ast)
  if (format === "date-time") return "an RFC 3339 date-time"
  if (format === "uuid" || hasCheck(ast, "isUUID") || hasCheck(ast, "isGUID")) return "a UUID"
  if (format === "email") return "an email address"
  if (hasCheck(ast, "isInt")) return "an integer"
  return undefined
}

const isAbsent = (ast: SchemaAST.AST): boolean => ast._tag === "Undefined" || ast._tag === "Void"

const flatten = (types: ReadonlyArray<SchemaAST.AST>): Array<SchemaAST.AST> =>
  types.flatMap((type) => (type._tag === "Union" && specialNoun(type) === undefined ? flatten(type.types) : [type]))

const either = (parts: ReadonlyArray<string>): string =>
  parts.length <= 2 ? parts.join(" or ") : `${parts.slice(0, -1).join(", ")} or ${parts.at(-1)}`

/** `null or one of: email, chat`: null first, then the literals as one list, then the other types. */
const unionNoun = (types: ReadonlyArray<SchemaAST.AST>): string => {
  const members = flatten(types).filter((type) => !isAbsent(type))
  const literals = members.flatMap((type) => (type._tag === "Literal" ? [String(type.literal)] : []))
  const others = members.filter((type) => type._tag !== "Literal" && type._tag !== "Null").map(noun)
  const parts = [
    ...(members.some((type) => type._tag === "Null") ? ["null"] : []),
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
    case "String":
    case "TemplateLiteral":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "Null":
      return "null"
    case "Literal":
      return String(ast.literal)
    case "Enum":
      return `one of: ${ast.enums.map(([, value]) => String(value)).join(", ")}`
    case "Objects":
      return "an object"
    case "Arrays":
      return "an array"
    case "Union":
      return unionNoun(ast.types)
    case "Suspend":
      return noun(ast.thunk())
    case "Declaration":
      // A class is known by what is sent: its fields.
      return ast.encoding === undefined ? "a valid value" : noun(SchemaAST.toEncoded(ast))
    default:
      return "a valid value"
  }
}

const valueIn = (payload: unknown, key: string): unknown =>
  Predicate.hasProperty(payload, key) ? payload[key] : undefined

const numberIn = (payload: unknown, key: string): number | undefined => {
  const value = valueIn(payload, key)
  return Predicate.isNumber(value) ? value : undefined
}

/** The rule an Effect check states, from its `representation` (id and bounds); `owner` is the checked node. */
const ruleOf = (filter: SchemaAST.Filter<unknown>, owner: SchemaAST.AST | undefined): string | undefined => {
  const representation = filter.annotations?.representation
  if (representation === undefined) return undefined
  const payload = representation.payload
  const items = owner?._tag === "Arrays"
  const size = (verb: string, n: number) =>
    items ? `must have ${verb} ${count(n, "item")}` : `must be ${verb} ${count(n, "character")}`
  const minimum = numberIn(payload, "minimum")
  const maximum = numberIn(payload, "maximum")
  switch (representation.id) {
    case "effect/schema/isMaxLength": {
      const max = numberIn(payload, "maxLength")
      return max === undefined ? undefined : size("at most", max)
    }
    case "effect/schema/isMinLength": {
      const min = numberIn(payload, "minLength")
      if (min === undefined) return undefined
      return min === 1 && !items ? "must not be empty" : size("at least", min)
    }
    case "effect/schema/isBetweenLength":
      if (minimum === undefined || maximum === undefined) return undefined
      if (minimum === maximum) return size("exactly", minimum)
      return items
        ? `must have between ${format(minimum)} and ${count(maximum, "item")}`
        : `must be between ${format(minimum)} and ${count(maximum, "character")}`
    case "effect/schema/isBetween": {
      if (minimum === undefined || maximum === undefined) return undefined
      const exclusiveMinimum = valueIn(payload, "exclusiveMinimum") === true
      const exclusiveMaximum = valueIn(payload, "exclusiveMaximum") === true
      if (!exclusiveMinimum && !exclusiveMaximum) return `must be between ${format(minimum)} and ${format(maximum)}`
      const low = exclusiveMinimum ? `greater than ${format(minimum)}` : `at least ${format(minimum)}`
      const high = exclusiveMaximum ? `less than ${format(maximum)}` : `at most ${format(maximum)}`
      return `must be ${low} and ${high}`
    }
    case "effect/schema/isGreaterThanOrEqualTo":
      return minimum === undefined ? undefined : `must be at least ${format(minimum)}`
    case "effect/schema/isGreaterThan": {
      const exclusiveMinimum = numberIn(payload, "exclusiveMinimum")
      return exclusiveMinimum === undefined ? undefined : `must be greater than ${format(exclusiveMinimum)}`
    }
    case "effect/schema/isLessThanOrEqualTo":
      return maximum === undefined ? undefined : `must be at most ${format(maximum)}`
    case "effect/schema/isLessThan": {
      const exclusiveMaximum = numberIn(payload, "exclusiveMaximum")
      return exclusiveMaximum === undefined ? undefined : `must be less than ${format(exclusiveMaximum)}`
    }
    case "effect/schema/isInt":
      return "must be an integer"
    case "effect/schema/isFinite":
      return "must be a finite number"
    case "effect/schema/isUUID":
    case "effect/schema/isGUID":
      return "must be a UUID"
    default:
      return undefined
  }
}

const messageOf = (annotations: Schema.Annotations.Issue | undefined): string | undefined =>
  typeof annotations?.message === "string" ? annotations.message : undefined

/**
 * A failed check: the message its author gave it, else the rule an Effect check states, else what a check of our
 * own says it accepts (its description: "text without NUL").
 */
const filterMessage = (issue: SchemaIssue.Filter, owner: SchemaAST.AST | undefined): string => {
  const annotations = issue.filter.annotations
  const own = typeof annotations?.message === "string" ? annotations.message : undefined
  const returned = issue.issue._tag === "InvalidValue" ? messageOf(issue.issue.annotations) : undefined
  const description = annotations?.representation === undefined ? annotations?.description : undefined
  return own ?? ruleOf(issue.filter, owner) ?? returned ??
    (description === undefined ? "is invalid" : `must be ${description}`)
}

/**
 * A union reports the complaint of the member whose type the value had (a string over the length of
 * `NullOr(BoundedString(2048))`: `must be at most 2,048 characters`), else which types it accepts.
 */
const unionMessage = (issue: SchemaIssue.AnyOf): string => {
  const specific = [...new Set(issue.issues.map(describe).filter((message) => message !== ""))]
  return specific.length === 1 ? specific[0]! : `must be ${noun(issue.ast)}`
}

/** The plain message of one field's failure. */
export const describe = (issue: SchemaIssue.Issue): string => {
  switch (issue._tag) {
    case "MissingKey":
      return "is required"
    case "UnexpectedKey":
    case "Forbidden":
      return "is not allowed"
    case "Pointer":
      return describe(issue.issue)
    case "InvalidType":
      // An optional field's `undefined` member: a JSON client cannot send it, so it has nothing to say.
      return isAbsent(issue.ast) ? "" : `must be ${noun(issue.ast)}`
    case "InvalidValue":
      return messageOf(issue.annotations) ?? "is invalid"
    case "Filter":
      return filterMessage(issue, undefined)
    case "Encoding":
      // A union on the encoded side (a `NullOr(X)` field with a default) says what its members say: the member
      // whose type the value had names the rule it broke (`"soon"`: X's message, not "null or X").
      if (issue.issue._tag === "AnyOf") return describe(issue.issue)
      // A value of the wrong type for the encoded side (`5` for a date-time string) says what is sent, unless checks
      // of the decoded side name it better; a failed parse (`"abc"` for an integer) says what was expected, as
      // Effect's own texts may repeat the value.
      return issue.issue._tag === "InvalidType" && issue.ast.checks === undefined
        ? describe(issue.issue)
        : `must be ${noun(issue.ast)}`
    case "AnyOf":
      return unionMessage(issue)
    case "OneOf":
      return `must be ${noun(issue.ast)}`
    case "Composite": {
      // The node's own checks, first failure first: a field says one thing (a string with NUL over its length
      // is told about the NUL, as the order of its checks reads).
      const own = issue.issues.find((child) => child._tag !== "Pointer")
      if (own === undefined) return `must be ${noun(issue.ast)}`
      return own._tag === "Filter" ? filterMessage(own, issue.ast) : describe(own)
    }
  }
}

/** Whether an issue is reported per child (`agent_ids.0`, `customer.email`), not as one message. */
const isContainer = (issue: SchemaIssue.Issue): boolean => {
  switch (issue._tag) {
    case "Pointer":
      return true
    case "Composite":
      return issue.issues.some((child) => child._tag === "Pointer")
    case "AnyOf":
      // An optional list or object (`X | undefined`) whose value had X's type: its items and fields report.
      return issue.issues.length === 1 && isContainer(issue.issues[0]!)
    case "Encoding":
    case "Filter":
      return isContainer(issue.issue)
    default:
      return false
  }
}

/** One message at one request path. */
export interface PlainIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** The plain message of every failing field of an issue tree, at its path (`[]` for the root). */
export const plainIssues = (issue: SchemaIssue.Issue): Array<PlainIssue> => {
  const out: Array<PlainIssue> = []
  const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): void => {
    if (!isContainer(issue)) {
      out.push({ path, message: describe(issue) })
      return
    }
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path])
      case "AnyOf":
        return walk(issue.issues[0]!, path)
      case "Encoding":
      case "Filter":
        return walk(issue.issue, path)
      case "Composite":
        for (const child of issue.issues) {
          if (child._tag === "Filter" && !isContainer(child)) {
            out.push({ path, message: filterMessage(child, issue.ast) })
          } else if (child._tag !== "Pointer") walk(child, path)
          else if (child.issue._tag === "MissingKey" && issue.ast._tag === "Arrays") {
            // A missing required element (`[]` for a non-empty array) is reported at its index, as Effect keys it.
            const required = issue.ast.elements.filter((element) => !SchemaAST.isOptional(element)).length
            out.push({ path: [...path, ...child.path], message: `must have at least ${count(required, "item")}` })
          } else walk(child, path)
        }
        return
    }
  }
  walk(issue, [])
  return out
}

/**
 * The schema as it is: kept for callers that prepared their request schemas for plain messages on Effect 3, where
 * the messages had to be annotations on every node. On Effect 4 `plainIssues` reads them from the issue tree.
 */
export const withPlainMessages = <S extends Schema.Top>(schema: S): S => schema
