/**
 * A plain predicate compiled from an effect Schema, accepting exactly what `Schema.is(schema)`
 * accepts. `Schema.is` runs effect's general parser (Either results, issue objects, output copies)
 * on every event payload, and a run's whole log is checked on every open and replay; a tree of
 * closures (and one generated function per struct) does the same checks in a fraction of the time
 * (docs/performance.md: ledger, 69df648).
 *
 * It mirrors effect 3.x's parser (ParseResult.ts, `go`) as `Schema.is` calls it: on the type
 * side (`AST.typeAST`), with `{ exact: true }` and no other option, so excess properties are
 * ignored, a required key must be an own property, and an optional key may be absent. Any node it
 * cannot mirror exactly (a Declaration, a TemplateLiteral, a node annotated with parse options or a
 * decoding fallback, a refinement whose filter would see a copy of its input) is checked by
 * `Schema.is` of that node alone, which is what the whole parser would have done there.
 */
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import * as AST from "effect/SchemaAST";

export type Guard = (u: unknown) => boolean;

/** The options `Schema.is` hands every parser, and so every refinement's filter. */
const IS_OPTIONS: AST.ParseOptions = { exact: true };

/** The predicate `Schema.is(schema)` would be, for the values that reach it. */
export function compileGuard<A, I, R>(schema: Schema.Schema<A, I, R>): (u: unknown) => u is A {
  return new GuardCompiler().compile(AST.typeAST(schema.ast)) as (u: unknown) => u is A;
}

const isString: Guard = (u) => typeof u === "string";
const isNumber: Guard = (u) => typeof u === "number";
const isBoolean: Guard = (u) => typeof u === "boolean";
const isBigInt: Guard = (u) => typeof u === "bigint";
const isSymbol: Guard = (u) => typeof u === "symbol";
const isUndefined: Guard = (u) => u === undefined;
const isAnything: Guard = () => true;
const isNothing: Guard = () => false;
const isNotNullable: Guard = (u) => u !== null && u !== undefined;
const isObjectOrFunction: Guard = (u) => (typeof u === "object" && u !== null) || typeof u === "function";
const hasOwn = (o: object, key: PropertyKey) => Object.prototype.hasOwnProperty.call(o, key);

/** Effect answers these by its own parser alone; they change what `is` means for their subtree. */
const hasParserAnnotation = (ast: AST.AST) => Option.isSome(AST.getParseOptionsAnnotation(ast)) || Option.isSome(AST.getDecodingFallbackAnnotation(ast));

/** `Schema.is` of one node, for what this compiler does not mirror. */
const fallback = (ast: AST.AST): Guard => Schema.is(Schema.make(ast));

class GuardCompiler {
  /** One guard per node, so a schema reused in many places (a JSON record) is compiled once. */
  private readonly compiled = new Map<AST.AST, Guard>();

  compile(ast: AST.AST): Guard {
    let guard = this.compiled.get(ast);
    if (guard === undefined) {
      guard = hasParserAnnotation(ast) ? fallback(ast) : this.compileNode(ast);
      this.compiled.set(ast, guard);
    }
    return guard;
  }

  private compileNode(ast: AST.AST): Guard {
    switch (ast._tag) {
      case "StringKeyword":
        return isString;
      case "NumberKeyword":
        return isNumber; // NaN, ±Infinity and -0 included, as effect's Predicate.isNumber
      case "BooleanKeyword":
        return isBoolean;
      case "BigIntKeyword":
        return isBigInt;
      case "SymbolKeyword":
        return isSymbol;
      case "UndefinedKeyword":
        return isUndefined;
      case "UnknownKeyword":
      case "AnyKeyword":
      case "VoidKeyword":
        return isAnything;
      case "NeverKeyword":
        return isNothing;
      case "ObjectKeyword":
        return isObjectOrFunction;
      case "Literal": {
        const literal = ast.literal;
        return (u) => u === literal;
      }
      case "UniqueSymbol": {
        const symbol = ast.symbol;
        return (u) => u === symbol;
      }
      case "Enums": {
        const values = ast.enums.map(([, value]) => value);
        return (u) => values.some((value) => value === u); // ===, not includes: an enum's NaN matches nothing
      }
      case "Union":
        return this.union(ast);
      case "TupleType":
        return this.tuple(ast);
      case "TypeLiteral":
        return this.typeLiteral(ast);
      case "Refinement":
        return this.refinement(ast);
      case "Suspend": {
        // Compiled on first use, as effect does: a recursive schema unfolds only as deep as its values.
        let inner: Guard | undefined;
        const f = ast.f;
        return (u) => (inner ??= this.compile(f()))(u);
      }
      // Declarations run their own parser; TemplateLiterals are rare; a Transformation cannot
      // survive `typeAST` (only its type side is checked), but if one did, effect knows best.
      default:
        return fallback(ast);
    }
  }

  private union(ast: AST.Union): Guard {
    // `is` tries only the members whose literal fields match the input; any other member would
    // reject it anyway, except a Declaration that is narrowed by its surrogate's fields.
    if (ast.types.some((member) => narrowedThroughDeclaration(member))) return fallback(ast);
    const members = ast.types.map((member) => this.compile(member));
    if (members.length === 2) {
      const [a, b] = members as [Guard, Guard];
      return (u) => a(u) || b(u);
    }
    return (u) => {
      for (const member of members) if (member(u)) return true;
      return false;
    };
  }

  private tuple(ast: AST.TupleType): Guard {
    const elements = ast.elements.map((element) => this.compile(element.type));
    const [head, ...tail] = ast.rest.map((rest) => this.compile(rest.type));
    const requiredLength = ast.elements.filter((element) => !element.isOptional).length + tail.length;
    const maxLength = head === undefined ? elements.length : Infinity;
    if (elements.length === 0 && head !== undefined && tail.length === 0) {
      return (u) => {
        if (!Array.isArray(u)) return false;
        for (let i = 0; i < u.length; i++) if (!head(u[i])) return false;
        return true;
      };
    }
    // The same walk as effect's: a missing optional element is skipped, post-rest elements
    // take the last places, and an index past the end is never read.
    return (u) => {
      if (!Array.isArray(u)) return false;
      const length = u.length;
      if (length < requiredLength || length > maxLength) return false;
      let i = 0;
      for (; i < elements.length; i++) if (i < length && !elements[i]!(u[i])) return false;
      if (head === undefined) return true;
      for (; i < length - tail.length; i++) if (!head(u[i])) return false;
      for (let j = 0; j < tail.length; j++) if (i + j < length && !tail[j]!(u[i + j])) return false;
      return true;
    };
  }

  private typeLiteral(ast: AST.TypeLiteral): Guard {
    if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return isNotNullable;
    const properties = ast.propertySignatures.map((ps) => ({ name: ps.name, optional: ps.isOptional, guard: this.compile(ps.type) }));
    const indexes = ast.indexSignatures
      .map((is) => ({
        keysOf: keysForIndexSignature(is.parameter),
        // Every key Object.keys gives is a string: no need to check it against a plain string parameter.
        key: AST.isStringKeyword(is.parameter) && !hasParserAnnotation(is.parameter) ? null : this.compile(is.parameter),
        value: this.compile(is.type),
      }))
      // A record of anything (a JSON record) cannot fail on a value: no need to walk its keys.
      .filter(({ value }) => value !== isAnything);
    const indexChecks: Guard | null =
      indexes.length === 0
        ? null
        : (u) => {
            for (const { keysOf, key, value } of indexes) {
              for (const k of keysOf(u as Record<PropertyKey, unknown>)) {
                if (key !== null && !key(k)) continue; // a key the signature does not speak for
                if (!value((u as Record<PropertyKey, unknown>)[k])) return false;
              }
            }
            return true;
          };
    return structGuard(properties, indexChecks);
  }

  private refinement(ast: AST.Refinement): Guard {
    // The filter sees what `from` parsed to: the input itself only for scalar schemas; a struct
    // or an array would hand it a copy (excess keys dropped), which only effect can make.
    if (!parsesToItsInput(ast.from)) return fallback(ast);
    const from = this.compile(ast.from);
    const filter = ast.filter;
    return (u) => from(u) && Option.isNone(filter(u, IS_OPTIONS, ast));
  }
}

/** Checks written inline for the commonest field types, instead of a call. */
const INLINE_CHECKS = new Map<Guard, (value: string) => string>([
  [isString, (v) => `typeof ${v} === "string"`],
  [isNumber, (v) => `typeof ${v} === "number"`],
  [isBoolean, (v) => `typeof ${v} === "boolean"`],
  [isAnything, () => "true"],
]);

/**
 * One struct's guard as a function of its own, its field names written into the source. A loop
 * shared by every struct reads fields through V8's slowest (megamorphic) lookup; here each read
 * is by a constant name on the shapes this struct meets, several times faster on event payloads.
 * Only field names (as JSON string literals) enter the source; guards and symbols are arguments.
 */
function structGuard(properties: ReadonlyArray<{ name: PropertyKey; optional: boolean; guard: Guard }>, indexChecks: Guard | null): Guard {
  const parameters: [string, unknown][] = [
    ["hasOwn", hasOwn],
    ["indexChecks", indexChecks],
  ];
  const lines = ["if (typeof u !== 'object' || u === null || Array.isArray(u)) return false;"];
  properties.forEach(({ name, optional, guard }, i) => {
    let key = JSON.stringify(name);
    if (typeof name !== "string") parameters.push([(key = `k${i}`), name]);
    let check = INLINE_CHECKS.get(guard)?.(`u[${key}]`);
    if (check === undefined) {
      parameters.push([`g${i}`, guard]);
      check = `g${i}(u[${key}])`;
    }
    lines.push(optional ? `if (hasOwn(u, ${key}) && !(${check})) return false;` : `if (!hasOwn(u, ${key}) || !(${check})) return false;`);
  });
  lines.push(indexChecks === null ? "return true;" : "return indexChecks(u);");
  const source = `return function structGuard(u) {\n${lines.join("\n")}\n};`;
  return new Function(...parameters.map(([p]) => p), source)(...parameters.map(([, value]) => value)) as Guard;
}

/** The keys an index signature covers, as effect's `getKeysForIndexSignature`. */
function keysForIndexSignature(parameter: AST.Parameter): (u: Record<PropertyKey, unknown>) => ReadonlyArray<PropertyKey> {
  switch (parameter._tag) {
    case "SymbolKeyword":
      return (u) => Object.getOwnPropertySymbols(u);
    case "Refinement":
      return keysForIndexSignature(parameter.from);
    default:
      return (u) => Object.keys(u);
  }
}

/** Whether effect's parser returns its input unchanged when it accepts it. */
function parsesToItsInput(ast: AST.AST): boolean {
  if (hasParserAnnotation(ast)) return false;
  switch (ast._tag) {
    case "Literal":
    case "UniqueSymbol":
    case "Enums":
    case "TemplateLiteral":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "SymbolKeyword":
    case "UndefinedKeyword":
    case "NeverKeyword":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "VoidKeyword":
    case "ObjectKeyword":
      return true;
    case "TypeLiteral":
      return ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0;
    case "Union":
      return ast.types.every(parsesToItsInput);
    case "Refinement":
      return parsesToItsInput(ast.from);
    default:
      return false;
  }
}

/** Whether effect would narrow a union by this member's literal fields as seen through a Declaration's surrogate. */
function narrowedThroughDeclaration(member: AST.AST, depth = 0): boolean {
  if (depth > 32) return true; // a suspension this deep: leave the union to effect rather than guess
  switch (member._tag) {
    case "Declaration":
      return Option.isSome(AST.getSurrogateAnnotation(member));
    case "Refinement":
      return narrowedThroughDeclaration(member.from, depth + 1);
    case "Suspend":
      return narrowedThroughDeclaration(member.f(), depth + 1);
    case "Transformation":
      return narrowedThroughDeclaration(member.from, depth + 1);
    default:
      return false;
  }
}
