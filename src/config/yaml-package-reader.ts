/**
 * Reads config text with the `yaml` package, for what `simple-yaml.ts` leaves to it (anchors,
 * tags, block scalars, …), with JSON as a fallback like the Python original. Nesting, alias
 * expansion and duplicate keys are checked in linear time before the package's recursive and
 * quadratic steps run, so hostile input gives one `ConfigError` line.
 */
import { Composer, LineCounter, Parser, YAMLParseError, isCollection, isMap, isScalar, type Document, type Node } from "yaml";
import { expandAliases } from "./alias-expansion.js";
import { ConfigError, formatKeyPath } from "./config-error.js";
import type { ConfigSource } from "./config-file.js";
import { firstDuplicateKey } from "./duplicate-keys.js";
import { NESTING_PROBLEM, overNestedOffset, overNestedPath } from "./nesting-limit.js";
import { PYYAML_OPTIONS, PYYAML_TO_JS } from "./pyyaml-schema.js";

/** `YAML.parseDocument`, with the syntax tree's nesting checked before the (recursive) composer runs. */
function composeDocument(path: string, text: string, lineCounter: LineCounter): Document.Parsed {
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const deep = overNestedOffset(tokens);
  if (deep !== undefined) throw new ConfigError({ problems: [`${path}:${lineCounter.linePos(deep).line}: ${NESTING_PROBLEM}`] });
  let doc: Document.Parsed | undefined;
  for (const next of new Composer(PYYAML_OPTIONS).compose(tokens, true, text.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], "MULTIPLE_DOCS", "Source contains multiple documents; please use YAML.parseAllDocuments()"));
      break;
    }
  }
  return doc!;
}

/** Line of the deepest node along `keyPath`: one descent, not a lookup from the root per prefix. */
function lineOfNode(doc: Document.Parsed, lineCounter: LineCounter, keyPath: readonly PropertyKey[]): number | undefined {
  let node = doc.contents as Node | null;
  let line = node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
  for (const segment of keyPath) {
    if (!isCollection(node)) break;
    const child = node.get(segment, true) as Node | undefined;
    if (!child?.range) break;
    // A mapping's value is located at its key's line (a block value starts on the next one).
    const pair = isMap(node) ? node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment)) : undefined;
    const keyRange = pair !== undefined && isScalar(pair.key) ? pair.key.range : undefined;
    line = lineCounter.linePos((keyRange ?? child.range)[0]).line;
    node = child;
  }
  return line;
}

/** Parses `text` (YAML, else JSON); throws `ConfigError` with one line per problem. */
export function readWithYamlPackage(path: string, text: string): ConfigSource {
  const lineCounter = new LineCounter();
  const doc = composeDocument(path, text, lineCounter);
  const errors = doc.errors.length > 0 ? doc.errors : [firstDuplicateKey(doc)].filter((e) => e !== undefined);
  if (errors.length === 0) {
    const aliases = expandAliases(doc);
    if (aliases !== undefined) throw new ConfigError({ problems: [`${path}:${lineCounter.linePos(aliases.offset).line}: ${aliases.problem}`] });
    let data: unknown;
    try {
      data = doc.toJS(PYYAML_TO_JS) ?? {};
    } catch (error) {
      // E.g. a merge key (<<) whose value is not a mapping.
      const what = error instanceof Error ? error.message : String(error);
      throw new ConfigError({ problems: [`${path}: invalid YAML: ${what}; fix that value`] });
    }
    return { path, data, lineOf: (keyPath) => lineOfNode(doc, lineCounter, keyPath) };
  }
  // Like the original: what YAML rejects may still be JSON.
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const first = errors[0]!;
    const pos = lineCounter.linePos(first.pos[0]);
    const where = `${path}:${pos.line}:${pos.col}`;
    const what = first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError({ problems: [`${where}: invalid YAML: ${what}; fix the syntax at that line`] });
  }
  const deep = overNestedPath(data);
  if (deep !== undefined) {
    const where = deep.length > 3 ? `${formatKeyPath(deep.slice(0, 3))}…` : formatKeyPath(deep);
    throw new ConfigError({ problems: [`${path}: ${where}: ${NESTING_PROBLEM}`] });
  }
  return { path, data, lineOf: () => undefined };
}
