/**
 * A reader for the plain YAML that config files are written in: block mappings and lists, one-line
 * scalars, comments, and flow collections (`[…]`, `{…}`, JSON), spread over lines or not.
 *
 * Why it exists: the `yaml` package builds a syntax tree and a document many times the size of the
 * source, too much for a big config (docs/performance.md, ledger); this reader goes straight to
 * values in one linear pass. It gives up at the first thing outside that subset (anchors and aliases,
 * tags, block scalars, scalars spread over lines, tabs, unusual indentation, duplicate or
 * non-string keys, deep nesting, …); the caller then reads the file with the `yaml` package, so
 * a value or an error never depends on which reader ran. Scalars resolve through the same tags
 * (`pyyaml-schema.ts`), and lines follow the `yaml` package's node positions.
 */
import * as Data from "effect/Data";
import { CST } from "yaml";
import { flattened } from "../runtime/flat-string.js";
import { MAX_NESTING } from "./nesting-limit.js";
import { resolvePlainScalar } from "./pyyaml-schema.js";
import { ValueLines } from "./value-lines.js";

export interface SimpleYamlDocument {
  readonly data: Record<string, unknown>;
  /** 1-based line of the deepest value that exists along `keyPath`. */
  lineOf(keyPath: readonly PropertyKey[]): number | undefined;
}

/** Raised inside the reader for input it leaves to the `yaml` package; never escapes `readSimpleYaml`. */
export class OutsideSimpleYaml extends Data.TaggedError("OutsideSimpleYaml")<{ readonly reason: string }> {}

// Anything here makes the reader give up: tabs, CR, other control characters, BOM, and the
// line breaks YAML 1.1 has beyond \n (NEL, LS, PS).
const UNSUPPORTED_CHARS = /[\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;
// Characters that may not start a plain scalar (or that start something this reader leaves alone).
const INDICATORS = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);
const FLOW_INDICATORS = new Set([..."[]{},"]);

const giveUp = (reason: string): never => {
  throw new OutsideSimpleYaml({ reason });
};

/** Parsed config, or `undefined` when the text needs the full YAML reader. */
export function readSimpleYaml(text: string): SimpleYamlDocument | undefined {
  const verdict = simpleYamlVerdict(text);
  return verdict instanceof OutsideSimpleYaml ? undefined : verdict;
}

/** Like `readSimpleYaml`, but says why it gave up (for tests). */
export function simpleYamlVerdict(text: string): SimpleYamlDocument | OutsideSimpleYaml {
  try {
    return new SimpleYamlReader(text).document();
  } catch (error) {
    if (error instanceof OutsideSimpleYaml) return error;
    throw error;
  }
}

class SimpleYamlReader {
  private readonly lines = new ValueLines();
  // The current line: [lineStart, lineEnd) without its "\n"; `indent` leading spaces.
  private lineStart = 0;
  private lineEnd = 0;
  private lineNo = 1;
  private indent = 0;
  private atEnd = false;
  // Position inside a flow collection, which may span lines.
  private pos = 0;

  constructor(private readonly text: string) {}

  document(): SimpleYamlDocument {
    const { text } = this;
    if (UNSUPPORTED_CHARS.test(text)) giveUp("tab, CR or control character");
    this.enterLine(0);
    this.skipNonContent(true);
    if (this.atEnd) giveUp("empty document");
    if (this.indent !== 0) giveUp("indented document");
    let data: Record<string, unknown>;
    const first = text[this.lineStart];
    if (first === "{") {
      data = this.flowMap(this.lineStart, -1, 1);
      this.endOfFlowLine();
    } else if (this.keyAt(this.lineStart) !== undefined) {
      data = this.blockMap(0, 1, this.lineStart);
    } else return giveUp("not a mapping at the top level");
    if (!this.atEnd) giveUp("content after the top-level mapping");
    const lines = this.lines;
    return { data, lineOf: (keyPath) => lines.lineOf(data, keyPath) };
  }

  // ---------------------------------------------------------------------------------------------
  // Lines.

  private enterLine(start: number): void {
    const { text } = this;
    this.lineStart = start;
    const nl = text.indexOf("\n", start);
    this.lineEnd = nl === -1 ? text.length : nl;
    let i = start;
    while (i < this.lineEnd && text.charCodeAt(i) === 32) i++;
    this.indent = i - start;
  }

  /** Whether the current line holds nothing but spaces or a comment. */
  private isBlankOrComment(): boolean {
    const at = this.lineStart + this.indent;
    return at === this.lineEnd || this.text[at] === "#";
  }

  /** Moves to the next line that holds content, or sets `atEnd`. */
  private nextContent(): void {
    if (this.lineEnd >= this.text.length) {
      this.atEnd = true;
      return;
    }
    this.enterLine(this.lineEnd + 1);
    this.lineNo++;
    this.skipNonContent(false);
  }

  private skipNonContent(atStart: boolean): void {
    let allowDocStart = atStart;
    for (;;) {
      if (!this.isBlankOrComment()) {
        if (this.indent === 0 && this.isDocumentMarker()) {
          const rest = this.skipSpaces(this.lineStart + 3);
          if (!(allowDocStart && this.text.startsWith("---", this.lineStart) && (rest === this.lineEnd || this.text[rest] === "#"))) {
            giveUp("document marker");
          }
          allowDocStart = false;
        } else if (this.indent === 0 && this.text[this.lineStart] === "%") {
          giveUp("directive");
        } else return;
      }
      if (this.lineEnd >= this.text.length) {
        this.atEnd = true;
        return;
      }
      this.enterLine(this.lineEnd + 1);
      this.lineNo++;
    }
  }

  private isDocumentMarker(): boolean {
    const { text, lineStart } = this;
    const three = text.slice(lineStart, lineStart + 3);
    return (three === "---" || three === "...") && (lineStart + 3 === this.lineEnd || text[lineStart + 3] === " ");
  }

  private skipSpaces(i: number): number {
    while (i < this.lineEnd && this.text.charCodeAt(i) === 32) i++;
    return i;
  }

  /** After a value that ends at `end`: only spaces or a comment may follow on the line. */
  private restOfLineIsEmpty(end: number): boolean {
    const next = this.skipSpaces(end);
    return next === this.lineEnd || (this.text[next] === "#" && next > end);
  }

  private isSeqItemHere(): boolean {
    const at = this.lineStart + this.indent;
    return this.text[at] === "-" && (at + 1 === this.lineEnd || this.text[at + 1] === " ");
  }

  // ---------------------------------------------------------------------------------------------
  // Block collections.

  private blockNode(indent: number, depth: number): unknown {
    if (this.isSeqItemHere()) return this.blockSeq(indent, depth);
    const at = this.lineStart + indent;
    if (this.keyAt(at) !== undefined) return this.blockMap(indent, depth, at);
    return giveUp("a scalar on its own line");
  }

  /** A block mapping whose keys sit at column `indent`; the first key starts at `firstKey` on the current line. */
  private blockMap(indent: number, depth: number, firstKey: number): Record<string, unknown> {
    if (depth > MAX_NESTING) giveUp("deep nesting");
    const map: Record<string, unknown> = {};
    const self = this.lineNo;
    const keys: string[] = [];
    const valueLines: number[] = [];
    let at = firstKey;
    for (;;) {
      const key = this.keyAt(at) ?? giveUp("not a key");
      if (key.name === "__proto__" || Object.hasOwn(map, key.name)) giveUp("duplicate or special key");
      const { value, line } = this.mapValue(key.after, indent, depth);
      map[key.name] = value;
      keys.push(key.name);
      valueLines.push(line);
      if (this.atEnd || this.indent < indent) break;
      if (this.indent > indent) giveUp("indentation");
      if (this.isSeqItemHere()) break;
      at = this.lineStart + indent;
    }
    this.lines.record(map, self, valueLines, keys);
    return map;
  }

  private mapValue(after: number, indent: number, depth: number): { value: unknown; line: number } {
    const start = this.skipSpaces(after);
    if (start < this.lineEnd && this.text[start] !== "#") return this.inlineValue(start, indent, depth);
    const keyLine = this.lineNo;
    this.nextContent();
    if (this.atEnd) return { value: null, line: keyLine };
    // A block value is located at its key's line: that is where a misspelled or misplaced key is.
    if (this.indent > indent) return { value: this.blockNode(this.indent, depth + 1), line: keyLine };
    // A list may sit at the same column as its key.
    if (this.indent === indent && this.isSeqItemHere()) return { value: this.blockSeq(indent, depth + 1), line: keyLine };
    return { value: null, line: keyLine };
  }

  /** A block list whose dashes sit at column `indent`; the current line is its first item. */
  private blockSeq(indent: number, depth: number): unknown[] {
    if (depth > MAX_NESTING) giveUp("deep nesting");
    const list: unknown[] = [];
    const self = this.lineNo;
    const valueLines: number[] = [];
    for (;;) {
      const itemLine = this.lineNo;
      const start = this.skipSpaces(this.lineStart + indent + 1);
      let item: { value: unknown; line: number };
      if (start === this.lineEnd || this.text[start] === "#") {
        this.nextContent();
        item = !this.atEnd && this.indent > indent ? { line: this.lineNo, value: this.blockNode(this.indent, depth + 1) } : { value: null, line: itemLine };
      } else if (this.text[start] === "-" && (start + 1 === this.lineEnd || this.text[start + 1] === " ")) {
        return giveUp("a list directly inside a list item");
      } else if (this.keyAt(start) !== undefined) {
        item = { value: this.blockMap(start - this.lineStart, depth + 1, start), line: itemLine };
      } else {
        item = this.inlineValue(start, indent, depth);
      }
      list.push(item.value);
      valueLines.push(item.line);
      if (this.atEnd || this.indent < indent) break;
      if (this.indent > indent) giveUp("indentation");
      if (!this.isSeqItemHere()) break;
    }
    this.lines.record(list, self, valueLines);
    return list;
  }

  /**
   * A value that starts at `start` on the current line of a block collection at column `indent`:
   * a one-line scalar or a flow collection. Leaves the reader on the next content line.
   */
  private inlineValue(start: number, indent: number, depth: number): { value: unknown; line: number } {
    const { text } = this;
    const line = this.lineNo;
    const first = text[start]!;
    let value: unknown;
    if (first === "[" || first === "{") {
      value = first === "[" ? this.flowSeq(start, indent, depth + 1) : this.flowMap(start, indent, depth + 1);
      this.endOfFlowLine();
    } else {
      if (first === '"' || first === "'") {
        const end = this.quotedEnd(start);
        value = this.quotedValue(start, end);
        if (!this.restOfLineIsEmpty(end)) giveUp("text after a quoted scalar");
      } else {
        value = (resolvePlainScalar(text.slice(start, this.plainEnd(start)), false) ?? giveUp("plain scalar the tags reject")).value;
      }
      this.nextContent();
    }
    // A more indented line would continue the value (or be an error): leave that to the full reader.
    if (!this.atEnd && this.indent > indent) giveUp("value continued on the next line");
    return { value, line };
  }

  /** End of a one-line plain scalar in block context that starts at `start` (trailing spaces excluded). */
  private plainEnd(start: number): number {
    const { text } = this;
    const first = text[start]!;
    if (INDICATORS.has(first) && !(first === "-" && text[start + 1] !== " " && start + 1 < this.lineEnd)) giveUp("indicator");
    let end = start;
    for (let i = start; i < this.lineEnd; i++) {
      const ch = text[i];
      if (ch === " ") {
        if (text[i + 1] === "#") break;
      } else if (ch === ":" && (i + 1 === this.lineEnd || text[i + 1] === " ")) {
        giveUp("a mapping inside a one-line value");
      } else end = i + 1;
    }
    return end;
  }

  /**
   * The key of a block mapping entry starting at `at` on the current line, and the position just
   * after its `:`; `undefined` when the line holds no `key:` there.
   */
  private keyAt(at: number): { name: string; after: number } | undefined {
    const { text } = this;
    const first = text[at];
    if (first === '"' || first === "'") {
      const end = this.quotedEnd(at);
      if (text[end] !== ":" || !(end + 1 === this.lineEnd || text[end + 1] === " ")) return undefined;
      return { name: this.quotedValue(at, end), after: end + 1 };
    }
    if (first === undefined || INDICATORS.has(first)) return undefined;
    let colon = at;
    for (; colon < this.lineEnd; colon++) {
      const ch = text[colon];
      if (ch === ":" && (colon + 1 === this.lineEnd || text[colon + 1] === " ")) break;
      if (ch === " " && text[colon + 1] === "#") return undefined;
    }
    if (colon === this.lineEnd) return undefined;
    let end = colon;
    while (text.charCodeAt(end - 1) === 32) end--;
    // The yaml package rejects implicit keys over 1024 characters.
    if (end - at > 1000) giveUp("long key");
    const resolved = resolvePlainScalar(text.slice(at, end), true) ?? giveUp("a key that is not a string");
    return { name: resolved.value as string, after: colon + 1 };
  }

  // ---------------------------------------------------------------------------------------------
  // Quoted scalars (one line).

  /** Position just after the closing quote of the quoted scalar at `start`, which must close on this line. */
  private quotedEnd(start: number): number {
    const { text } = this;
    const quote = text[start];
    for (let i = start + 1; i < this.lineEnd; i++) {
      const ch = text[i];
      if (quote === '"' && ch === "\\") i++;
      else if (ch === quote) {
        if (quote === "'" && text[i + 1] === "'") i++;
        else return i + 1;
      }
    }
    return giveUp("quoted scalar spread over lines");
  }

  private quotedValue(start: number, end: number): string {
    const { text } = this;
    const double = text[start] === '"';
    const inner = text.slice(start + 1, end - 1);
    // Without escapes, a one-line quoted scalar is its text.
    if (double ? !inner.includes("\\") : !inner.includes("'")) return inner;
    let failed = false;
    const token: CST.FlowScalar = { type: double ? "double-quoted-scalar" : "single-quoted-scalar", offset: start, indent: 0, source: text.slice(start, end) };
    const resolved = CST.resolveAsScalar(token, true, () => (failed = true));
    if (failed || resolved === null) return giveUp("bad quoted scalar");
    // The package builds the value a character at a time: kept as built, it is a rope (flat-string.ts).
    return flattened(resolved.value);
  }

  // ---------------------------------------------------------------------------------------------
  // Flow collections. `blockIndent` is the column of the enclosing block collection (-1 at the
  // top): continuation lines must be indented further.

  private flowSeq(start: number, blockIndent: number, depth: number): unknown[] {
    if (depth > MAX_NESTING) giveUp("deep nesting");
    const list: unknown[] = [];
    const self = this.lineNo;
    const valueLines: number[] = [];
    this.pos = start + 1;
    this.skipFlowSpace(blockIndent);
    while (this.text[this.pos] !== "]") {
      valueLines.push(this.lineNo);
      list.push(this.flowValue(blockIndent, depth));
      this.skipFlowSpace(blockIndent);
      const ch = this.text[this.pos];
      if (ch === "]") break;
      if (ch !== ",") giveUp("expected , or ]");
      this.pos++;
      this.skipFlowSpace(blockIndent);
    }
    this.pos++;
    this.lines.record(list, self, valueLines);
    return list;
  }

  private flowMap(start: number, blockIndent: number, depth: number): Record<string, unknown> {
    if (depth > MAX_NESTING) giveUp("deep nesting");
    const { text } = this;
    const map: Record<string, unknown> = {};
    const self = this.lineNo;
    const keys: string[] = [];
    const valueLines: number[] = [];
    this.pos = start + 1;
    this.skipFlowSpace(blockIndent);
    while (text[this.pos] !== "}") {
      const first = text[this.pos];
      let name: string;
      let quoted = false;
      if (first === '"' || first === "'") {
        const end = this.quotedEnd(this.pos);
        name = this.quotedValue(this.pos, end);
        this.pos = end;
        quoted = true;
      } else {
        const end = this.flowPlainEnd(true);
        name = (resolvePlainScalar(text.slice(this.pos, end), true) ?? giveUp("a key that is not a string")).value as string;
        this.pos = end;
      }
      while (text[this.pos] === " ") this.pos++;
      // After a quoted (JSON-like) key the value may follow the colon directly.
      if (text[this.pos] !== ":" || !(quoted || text[this.pos + 1] === " " || text[this.pos + 1] === "\n")) giveUp("a key without a value");
      this.pos++;
      this.skipFlowSpace(blockIndent);
      if (name === "__proto__" || Object.hasOwn(map, name)) giveUp("duplicate or special key");
      keys.push(name);
      valueLines.push(this.lineNo);
      map[name] = this.flowValue(blockIndent, depth);
      this.skipFlowSpace(blockIndent);
      const ch = text[this.pos];
      if (ch === "}") break;
      if (ch !== ",") giveUp("expected , or }");
      this.pos++;
      this.skipFlowSpace(blockIndent);
    }
    this.pos++;
    this.lines.record(map, self, valueLines, keys);
    return map;
  }

  private flowValue(blockIndent: number, depth: number): unknown {
    const { text } = this;
    const first = text[this.pos];
    if (first === "[") return this.flowSeq(this.pos, blockIndent, depth + 1);
    if (first === "{") return this.flowMap(this.pos, blockIndent, depth + 1);
    if (first === '"' || first === "'") {
      const end = this.quotedEnd(this.pos);
      const value = this.quotedValue(this.pos, end);
      this.pos = end;
      return value;
    }
    const end = this.flowPlainEnd(false);
    const value = (resolvePlainScalar(text.slice(this.pos, end), false) ?? giveUp("plain scalar the tags reject")).value;
    this.pos = end;
    return value;
  }

  /** End of the one-line plain scalar at `pos` inside a flow collection (trailing spaces excluded). */
  private flowPlainEnd(atKey: boolean): number {
    const { text } = this;
    const start = this.pos;
    const first = text[start];
    const second = text[start + 1];
    if (first === undefined || (INDICATORS.has(first) && !(first === "-" && second !== undefined && !" \n".includes(second) && !FLOW_INDICATORS.has(second)))) {
      giveUp("indicator in a flow collection");
    }
    let end = start;
    let i = start;
    for (; i < this.lineEnd; i++) {
      const ch = text[i]!;
      if (FLOW_INDICATORS.has(ch)) break;
      if (ch === ":" && (i + 1 === this.lineEnd || text[i + 1] === " " || FLOW_INDICATORS.has(text[i + 1]!))) break;
      if (ch === " ") {
        if (text[i + 1] === "#") break;
      } else end = i + 1;
    }
    if (i === this.lineEnd) {
      // A plain scalar that reaches the end of the line may go on on the next one: only accept
      // it when what follows is plainly the next indicator.
      let j = i;
      while (text[j] === " " || text[j] === "\n") j++;
      const next = text[j];
      if (!(next === "," || next === "]" || next === "}" || (atKey && next === ":"))) giveUp("plain scalar spread over lines");
    }
    return end;
  }

  /** Skips spaces, line breaks and comments inside a flow collection. */
  private skipFlowSpace(blockIndent: number): void {
    const { text } = this;
    for (;;) {
      const ch = text[this.pos];
      if (ch === " ") this.pos++;
      else if (ch === "#" && (this.pos === this.lineStart || text[this.pos - 1] === " ")) this.pos = this.lineEnd;
      else if (ch === "\n") {
        this.enterLine(this.pos + 1);
        this.lineNo++;
        this.pos = this.lineStart;
        if (this.lineStart + this.indent < this.lineEnd) {
          // The yaml package has its own rules for less indented lines and markers: leave them to it.
          if (this.indent <= blockIndent) giveUp("flow collection not indented");
          if (this.indent === 0 && this.isDocumentMarker()) giveUp("document marker");
        }
      } else return;
    }
  }

  /** After a flow collection ends at `pos`: the rest of the line, then on to the next content line. */
  private endOfFlowLine(): void {
    if (!this.restOfLineIsEmpty(this.pos)) giveUp("text after a flow collection");
    this.nextContent();
  }
}
