/**
 * How deep mappings and lists may nest in a config. Real configs need about 6 levels
 * (top → trainers → [i] → params_variants → [j] → a kwarg's own list or mapping); 64 leaves ten
 * times that for eval_kwargs data. The bound keeps every recursive step after parsing (the
 * composer, `toJS`, schema decoding, cloning, hashing) far from the JS stack limit, which a
 * file of `[[[[…` would otherwise reach within a few thousand levels; PyYAML itself gives up
 * after a few hundred.
 */
import type { CST } from "yaml";

export const MAX_NESTING = 64;

/** The one-line problem (without the `file:line: ` prefix) for a document nested too deeply. */
export const NESTING_PROBLEM = `mappings and lists are nested more than ${MAX_NESTING} levels deep; a config needs only a few levels, so flatten this value`;

/**
 * Offset of the first collection that sits more than `MAX_NESTING` collections deep in the
 * syntax tree, or `undefined`. Iterative, so it is safe on any depth (the composer is not).
 */
export function overNestedOffset(tokens: readonly CST.Token[]): number | undefined {
  const stack: Array<{ token: CST.Token | undefined; depth: number }> = tokens.map((token) => ({ token, depth: 0 }));
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token === undefined) continue;
    switch (token.type) {
      case "document":
        stack.push({ token: token.value, depth });
        break;
      case "block-map":
      case "block-seq":
      case "flow-collection": {
        if (depth + 1 > MAX_NESTING) return token.offset;
        for (const item of token.items) {
          if ("key" in item) stack.push({ token: item.key ?? undefined, depth: depth + 1 });
          stack.push({ token: item.value, depth: depth + 1 });
        }
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

/** Key path of the first mapping or list more than `MAX_NESTING` levels deep in a parsed value, or `undefined`. */
export function overNestedPath(value: unknown): PropertyKey[] | undefined {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (path.length + 1 > MAX_NESTING) return path;
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(current) ? current.map((v, i) => [i, v]) : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
  }
  return undefined;
}
