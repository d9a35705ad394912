/**
 * A large projection file produced piece by piece: the manifest and the files index of a big run
 * are megabytes, and rendering one whole (its object tree, a sanitized copy, the text) allocated
 * many times that (docs/performance.md: ledger, 0e92b24). The writer streams the pieces to the
 * file; `text()` joins them (tests, comparisons).
 */
import { pythonJsonString, pythonPrettyJson } from "../../codec/python-json.js";
import { isSecretName, REDACTED, sanitizedJson } from "./artifact-format.js";

export class TextPieces {
  constructor(readonly pieces: () => Iterable<string>) {}

  text(): string {
    let text = "";
    for (const piece of this.pieces()) text += piece;
    return text;
  }
}

/** A file's text, whole. */
export const textOf = (content: string | TextPieces): string => (content instanceof TextPieces ? content.text() : content);

/**
 * What `jsonArtifact({ ...head, [listKey]: [...items], ...tail })` renders, byte for byte, with
 * each item sanitized and rendered on its own when the pieces are read.
 */
export function jsonArtifactPieces(
  head: Readonly<Record<string, unknown>>,
  listKey: string,
  items: () => Iterable<unknown>,
  tail: Readonly<Record<string, unknown>> = {},
  options: { readonly ensureAscii?: boolean } = {},
): TextPieces {
  const LIST = Symbol("list");
  const entries: [string, unknown][] = [...Object.entries(head), [listKey, LIST] as [string, unknown], ...Object.entries(tail)].filter(([, v]) => v !== undefined);
  const ensureAscii = options.ensureAscii ?? false;
  return new TextPieces(function* () {
    yield "{\n";
    let first = true;
    for (const [key, value] of entries) {
      const prefix = `${first ? "" : ",\n"}  ${pythonJsonString(key, ensureAscii)}: `;
      first = false;
      if (value !== LIST) {
        yield prefix + (isSecretName(key) ? pythonPrettyJson(REDACTED) : sanitizedJson(value, { ensureAscii, depth: 1 }));
        continue;
      }
      if (isSecretName(key)) {
        yield prefix + pythonPrettyJson(REDACTED);
        continue;
      }
      let none = true;
      for (const item of items()) {
        yield `${none ? `${prefix}[\n` : ",\n"}    ${sanitizedJson(item, { ensureAscii, depth: 2 })}`;
        none = false;
      }
      yield none ? `${prefix}[]` : "\n  ]";
    }
    yield "\n}\n";
  });
}
