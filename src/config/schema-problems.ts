/**
 * Turns an effect/Schema parse issue into user-facing problems: the key path of each bad value,
 * what was expected (the schema's description) and what was found.
 */
import * as Option from "effect/Option";
import * as ParseResult from "effect/ParseResult";
import * as SchemaAST from "effect/SchemaAST";

export interface SchemaProblem {
  readonly path: readonly PropertyKey[];
  readonly expected: string;
  readonly found: unknown;
}

const children = (issues: ParseResult.ParseIssue | readonly ParseResult.ParseIssue[]): readonly ParseResult.ParseIssue[] =>
  Array.isArray(issues) ? issues : [issues as ParseResult.ParseIssue];

/** Whether the issue is about something inside the value rather than the value itself. */
function pointsInside(issue: ParseResult.ParseIssue): boolean {
  switch (issue._tag) {
    case "Pointer":
      return true;
    case "Composite":
      return children(issue.issues).some(pointsInside);
    case "Refinement":
    case "Transformation":
      return pointsInside(issue.issue);
    default:
      return false;
  }
}

function expectedOf(ast: SchemaAST.AST): string {
  const own = SchemaAST.getDescriptionAnnotation(ast);
  if (Option.isSome(own)) return own.value;
  if (SchemaAST.isUnion(ast)) {
    // An optional key is a union with `undefined`; that member says nothing useful.
    const members = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t));
    return members.map(expectedOf).join(" or ");
  }
  if (SchemaAST.isTypeLiteral(ast)) return "a mapping";
  if (SchemaAST.isTupleType(ast)) return "a list";
  if (SchemaAST.isRefinement(ast) || SchemaAST.isTransformation(ast)) return expectedOf(SchemaAST.isRefinement(ast) ? ast.from : ast.to);
  return String(ast);
}

export function schemaProblems(issue: ParseResult.ParseIssue, path: readonly PropertyKey[] = []): SchemaProblem[] {
  switch (issue._tag) {
    case "Pointer": {
      const more = Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey];
      return schemaProblems(issue.issue, [...path, ...more]);
    }
    case "Transformation":
      return schemaProblems(issue.issue, path);
    case "Refinement":
      return pointsInside(issue.issue) ? schemaProblems(issue.issue, path) : [{ path, expected: expectedOf(issue.ast), found: issue.actual }];
    case "Composite": {
      const inner = children(issue.issues).filter(pointsInside);
      if (inner.length > 0) return inner.flatMap((child) => schemaProblems(child, path));
      return [{ path, expected: expectedOf(issue.ast), found: issue.actual }];
    }
    case "Missing": {
      // A missing key's issue carries the key's property signature, not its type.
      const ast = issue.ast as unknown as SchemaAST.AST | SchemaAST.PropertySignature;
      const type = ast instanceof SchemaAST.PropertySignature && Option.isNone(SchemaAST.getDescriptionAnnotation(ast)) ? ast.type : ast;
      return [{ path, expected: expectedOf(type as SchemaAST.AST), found: undefined }];
    }
    case "Unexpected":
      return [{ path, expected: "no such key", found: issue.actual }];
    case "Type":
    case "Forbidden":
      return [{ path, expected: expectedOf(issue.ast), found: issue.actual }];
  }
}
