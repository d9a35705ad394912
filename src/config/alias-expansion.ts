/**
 * Bounds what aliases (`*name`) may do, then replaces each alias by the node its anchor names,
 * so that `toJS` expands it like any other node.
 *
 * The `yaml` package's own guard (`maxAliasCount`) throws from deep inside `toJS` (a stack trace,
 * not a config error), counts aliases rather than the values they expand to (one alias of a long
 * list is cheap for it, but a thousand copies of that list are not cheap for us: every later step
 * clones and walks the expanded tree), and looks each alias up with a scan of the document, which
 * is quadratic. Here each anchor's expanded size and depth are computed once, in one walk.
 */
import { isAlias, isCollection, isPair, isScalar, type Document, type Node } from "yaml";
import { MAX_NESTING, NESTING_PROBLEM } from "./nesting-limit.js";

/**
 * Aliases may add at most this many values on top of the values written before them in the file:
 * 100,000 is far beyond sharing a kwargs block between trainers, and small enough for every later
 * step; tying the rest to the file's own size lets a big anchor be reused once or twice.
 */
export const ALIAS_EXPANSION_SLACK = 100_000;

export interface AliasProblem {
  /** Source offset of the alias (or anchor) at fault. */
  readonly offset: number;
  /** One line, without the `file:line: ` prefix. */
  readonly problem: string;
}

interface Expanded {
  /** Values (scalars, mappings, lists) in the node once every alias in it is expanded. */
  readonly size: number;
  /** Levels of mappings and lists in it once expanded (a scalar has 0). */
  readonly height: number;
}

const SCALAR: Expanded = { size: 1, height: 0 };

class AliasBound {
  constructor(readonly problem: AliasProblem) {}
}

/** Checks the aliases of a composed document and replaces them by their targets; returns the first problem, if any. */
export function expandAliases(doc: Document.Parsed): AliasProblem | undefined {
  const anchors = new Map<string, Node>();
  const expanded = new Map<Node, Expanded>();
  const open = new Set<Node>();
  let written = 0;
  let added = 0;

  const fail = (offset: number, problem: string): never => {
    throw new AliasBound({ offset, problem });
  };

  /** Walks `node` (enclosed by `depth` collections); returns its expansion and the node to put in its place. */
  const walk = (node: unknown, depth: number): { node: unknown; expanded: Expanded } => {
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? 0;
      const target = anchors.get(node.source);
      if (target === undefined) return fail(offset, `alias *${node.source} has no anchor &${node.source} before it; define the anchor first, or write the value out`);
      if (open.has(target)) {
        return fail(offset, `alias *${node.source} sits inside the value it names, which would repeat forever; point it at an anchor outside that value, or write the value out`);
      }
      const size = expanded.get(target) ?? SCALAR;
      added += size.size;
      if (added > written + ALIAS_EXPANSION_SLACK) {
        return fail(
          offset,
          `alias *${node.source} (with the aliases before it) expands the config to more than ${(written + ALIAS_EXPANSION_SLACK).toLocaleString("en-US")} values, as an alias bomb ("billion laughs") does; use fewer aliases, or write the values out`,
        );
      }
      if (depth + size.height > MAX_NESTING) return fail(offset, `through alias *${node.source}, ${NESTING_PROBLEM}`);
      return { node: target, expanded: size };
    }
    if (!isCollection(node) && !isScalar(node)) return { node, expanded: { size: 0, height: 0 } };
    written++;
    if (node.anchor) anchors.set(node.anchor, node);
    if (isScalar(node)) {
      if (node.anchor) expanded.set(node, SCALAR);
      return { node, expanded: SCALAR };
    }
    open.add(node);
    let size = 1;
    let height = 0;
    const items = node.items as unknown[];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (isPair(item)) {
        const key = walk(item.key, depth + 1);
        const value = walk(item.value, depth + 1);
        item.key = key.node;
        item.value = value.node;
        size += key.expanded.size + value.expanded.size;
        height = Math.max(height, key.expanded.height, value.expanded.height);
      } else {
        const child = walk(item, depth + 1);
        items[i] = child.node;
        size += child.expanded.size;
        height = Math.max(height, child.expanded.height);
      }
    }
    open.delete(node);
    const result = { size, height: height + 1 };
    if (node.anchor) expanded.set(node, result);
    return { node, expanded: result };
  };

  try {
    doc.contents = walk(doc.contents, 0).node as typeof doc.contents;
    return undefined;
  } catch (error) {
    if (error instanceof AliasBound) return error.problem;
    throw error;
  }
}
