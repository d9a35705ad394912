/**
 * The `yaml` package's duplicate-key check (`uniqueKeys`), in linear time: the package compares
 * each key with every earlier key of its mapping, which made 100,000 keys take minutes. Keys are
 * equal as the package decides: scalars with the same value (so `1` and `'1'` differ, and so do
 * two `1.0`s, which are distinct PyFloats); aliases and collections only when they are the same
 * node, which never happens in a parsed document.
 */
import { YAMLParseError, isCollection, isMap, isPair, isScalar, type Document } from "yaml";

/** The error the package would report for the first repeated key, in the order it composes nodes. */
export function firstDuplicateKey(doc: Document.Parsed): YAMLParseError | undefined {
  // Recursive: the document is at most MAX_NESTING deep (checked on its syntax tree first).
  const walk = (node: unknown): YAMLParseError | undefined => {
    if (!isCollection(node)) return undefined;
    const seen = isMap(node) ? new Set<unknown>() : undefined;
    for (const item of node.items as unknown[]) {
      if (!isPair(item)) {
        const inner = walk(item);
        if (inner) return inner;
        continue;
      }
      const inKey = walk(item.key);
      if (inKey) return inKey;
      const key = item.key;
      if (seen !== undefined && isScalar(key) && !Number.isNaN(key.value)) {
        if (seen.has(key.value)) {
          const at = key.range?.[0] ?? 0;
          return new YAMLParseError([at, at + 1], "DUPLICATE_KEY", "Map keys must be unique");
        }
        seen.add(key.value);
      }
      const inValue = walk(item.value);
      if (inValue) return inValue;
    }
    return undefined;
  };
  return walk(doc.contents);
}
