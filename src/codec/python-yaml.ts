/**
 * PyYAML's `yaml.safe_dump(value, sort_keys=False)` byte for byte, for JSON-like values (plain
 * objects, arrays, strings, numbers, booleans, null, `PyFloat`): the Python original writes its
 * config snapshot and state files so, and a Python reader must load what it would have loaded.
 * PyYAML's defaults hold: block style (empty collections as `[]` / `{}`), 2-space indent, lists
 * inside mappings not indented, lines folded past 80 columns, non-ASCII escaped in double quotes
 * (`allow_unicode=False`), and YAML 1.1 resolution (`yes`, `on`, `12:30`, `2002-12-14` are
 * quoted as strings).
 *
 * Written as PyYAML's emitter decides, with its state (column, indent, whether the last thing
 * written was white space or indentation), as a recursive walk instead of an event machine. Where
 * it differs: an object met twice is written in full each time (PyYAML writes an anchor and an
 * alias), and a value PyYAML refuses (a function, a class instance) is written as its text.
 */
import { PyFloat, pythonFloatRepr } from "./python-json.js";

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
/** A longer key is written as a complex key (`? key`): PyYAML counts its `!!str` tag (5) in its 128-character limit. */
const SIMPLE_KEY_LIMIT = 128 - "!!str".length;

/*
 * What PyYAML's resolver (YAML 1.1, PyYAML 6.0) would load a plain scalar as when not a string,
 * told apart by its first character as PyYAML does: a word (bool, null, merge, value) or a number
 * or date, each pattern compiled only when a string could match it.
 */
const YAML11_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const YAML11_WORDS = new Set(["null", "Null", "NULL", "~", "<<", "="]);
const NUMBER_FIRST_CHARACTERS = new Set("-+.0123456789");
const YAML11_NUMBER_OR_DATE = anyOf([
  // float
  "[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?",
  "\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
  "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*",
  "[-+]?\\.(?:inf|Inf|INF)",
  "\\.(?:nan|NaN|NAN)",
  // int
  "[-+]?0b[0-1_]+",
  "[-+]?0[0-7_]+",
  "[-+]?(?:0|[1-9][0-9_]*)",
  "[-+]?0x[0-9a-fA-F_]+",
  "[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
  // timestamp
  "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
  "[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?",
]);

function anyOf(alternatives: readonly string[]): RegExp {
  return new RegExp(`^(?:${alternatives.map((alternative) => `(?:${alternative})`).join("|")})$`);
}

/** Whether PyYAML would load `text`, written plain, as something else than a string (the empty string is null). */
function mayLoadAsOtherType(text: CodePoints): boolean {
  if (text.length === 0) return true;
  const whole = typeof text === "string" ? text : text.join("");
  if (NUMBER_FIRST_CHARACTERS.has(text[0]!)) return YAML11_NUMBER_OR_DATE.test(whole);
  return YAML11_WORDS.has(whole) || YAML11_BOOL.test(whole);
}

/** Escapes PyYAML writes by name in double quotes; every other character outside printable ASCII is `\xXX`, `\uXXXX` or `\UXXXXXXXX`. */
const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  "\0": "0",
  "\x07": "a",
  "\b": "b",
  "\t": "t",
  "\n": "n",
  "\v": "v",
  "\f": "f",
  "\r": "r",
  "\x1b": "e",
  '"': '"',
  "\\": "\\",
  "\x85": "N",
  "\xa0": "_",
  "\u2028": "L",
  "\u2029": "P",
};

/**
 * A scalar's text as Python sees it: one item per code point. A string without surrogates is its
 * own code points; one with any is split (an astral character is one column and one escape).
 */
type CodePoints = string | readonly string[];

const codePointsOf = (text: string): CodePoints => (/[\ud800-\udfff]/.test(text) ? Array.from(text) : text);
const spanOf = (text: CodePoints, start: number, end: number): string => (typeof text === "string" ? text.slice(start, end) : text.slice(start, end).join(""));

/** Which styles PyYAML allows a scalar (`analyze_scalar`, with `allow_unicode=False`). */
interface ScalarAnalysis {
  readonly empty: boolean;
  readonly multiline: boolean;
  readonly allowPlain: boolean;
  readonly allowSingleQuoted: boolean;
}

const isBlank = (ch: string | undefined) => ch === undefined || ch === "\0" || ch === " " || ch === "\t" || ch === "\r" || ch === "\n" || ch === "\x85" || ch === "\u2028" || ch === "\u2029";
const isBreak = (ch: string) => ch === "\n" || ch === "\x85" || ch === "\u2028" || ch === "\u2029";

function analyze(text: CodePoints): ScalarAnalysis {
  const length = text.length;
  if (length === 0) return { empty: true, multiline: false, allowPlain: true, allowSingleQuoted: true };
  const head = spanOf(text, 0, 3);
  let indicators = head === "---" || head === "...";
  let lineBreaks = false;
  let special = false;
  let edgeSpace = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  for (let index = 0; index < length; index++) {
    const ch = text[index]!;
    const followedByBlank = isBlank(text[index + 1]);
    if (index === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(ch)) indicators = true;
      else if ((ch === "?" || ch === ":" || ch === "-") && followedByBlank) indicators = true;
    } else if ((ch === ":" && followedByBlank) || (ch === "#" && isBlank(text[index - 1]))) {
      indicators = true;
    }
    if (isBreak(ch)) lineBreaks = true;
    // Without `allow_unicode`, everything but a line feed and printable ASCII is special.
    if (ch !== "\n" && !(ch >= " " && ch <= "~")) special = true;
    if (ch === " ") {
      if (index === 0 || index === length - 1) edgeSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(ch)) {
      if (index === 0 || index === length - 1) edgeSpace = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
  }
  return {
    empty: false,
    multiline: lineBreaks,
    allowPlain: !(edgeSpace || breakSpace || spaceBreak || special || lineBreaks || indicators),
    allowSingleQuoted: !(breakSpace || spaceBreak || special),
  };
}

/**
 * Printable ASCII without a blank or a colon, opening with a letter, a digit or an underscore (most
 * names, numbers and identifiers): no indicator, break or special character in it, so `analyze`
 * would allow it plain.
 */
const SIMPLE_PLAIN = /^[A-Za-z0-9_][!-9;-~]*$/;
const SIMPLE_PLAIN_ANALYSIS: ScalarAnalysis = { empty: false, multiline: false, allowPlain: true, allowSingleQuoted: true };

/** Where a node stands: PyYAML's root, mapping and simple-key contexts. */
interface NodeContext {
  readonly root?: boolean;
  readonly mapping?: boolean;
  readonly simpleKey?: boolean;
}

class SafeDumper {
  private out = "";
  private column = 0;
  private indent: number | null = null;
  private readonly indents: (number | null)[] = [];
  /** The last thing written was white space (no space needed before an indicator). */
  private whitespace = true;
  /** Only indentation has been written on this line so far. */
  private indention = true;
  private openEnded = false;

  document(value: unknown): string {
    this.node(value, { root: true });
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator("...", true);
      this.writeIndent();
    }
    return this.out;
  }

  private node(value: unknown, context: NodeContext): void {
    if (value instanceof PyFloat) return this.scalar(floatText(value.value), true, context);
    if (value === null || value === undefined) return this.scalar("null", true, context);
    switch (typeof value) {
      case "boolean":
        return this.scalar(value ? "true" : "false", true, context);
      case "number":
        return this.scalar(Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : floatText(value), true, context);
      case "string":
        return this.scalar(value, false, context);
      case "bigint":
        return this.scalar(String(value), true, context);
      case "object":
        break;
      default:
        return this.scalar(String(value), false, context);
    }
    if (Array.isArray(value)) return this.sequence(value, context);
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return this.scalar(String(value), false, context);
    this.mapping(value as Record<string, unknown>);
  }

  private sequence(items: readonly unknown[], context: NodeContext): void {
    if (items.length === 0) return this.emptyCollection("[", "]");
    // A list that is a mapping's value starts on the key's own indentation.
    this.increaseIndent(false, context.mapping === true && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator("-", true, false, true);
      this.node(item, {});
    }
    this.indent = this.indents.pop()!;
  }

  private mapping(record: Record<string, unknown>): void {
    // Like JSON, a key whose value is undefined is left out.
    const keys = Object.keys(record).filter((key) => record[key] !== undefined);
    if (keys.length === 0) return this.emptyCollection("{", "}");
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      const simple = SIMPLE_PLAIN.test(key);
      const text = simple ? key : codePointsOf(key);
      const analysis = simple ? SIMPLE_PLAIN_ANALYSIS : analyze(text);
      if (text.length < SIMPLE_KEY_LIMIT && !analysis.empty && !analysis.multiline) {
        this.scalarOf(text, analysis, false, { mapping: true, simpleKey: true });
        this.writeIndicator(":", false);
      } else {
        this.writeIndicator("?", true, false, true);
        this.scalarOf(text, analysis, false, { mapping: true });
        this.writeIndent();
        this.writeIndicator(":", true, false, true);
      }
      this.node(record[key], { mapping: true });
    }
    this.indent = this.indents.pop()!;
  }

  private emptyCollection(open: string, close: string): void {
    this.writeIndicator(open, true, true);
    this.writeIndicator(close, false);
  }

  /** `resolvesToItself`: a number, boolean or null, which loads back as what it is written as. */
  private scalar(value: string, resolvesToItself: boolean, context: NodeContext): void {
    if (SIMPLE_PLAIN.test(value)) return this.scalarOf(value, SIMPLE_PLAIN_ANALYSIS, resolvesToItself, context);
    const text = codePointsOf(value);
    this.scalarOf(text, analyze(text), resolvesToItself, context);
  }

  private scalarOf(text: CodePoints, analysis: ScalarAnalysis, resolvesToItself: boolean, context: NodeContext): void {
    this.increaseIndent(true, false);
    const simpleKey = context.simpleKey === true;
    const split = !simpleKey;
    // A string may be plain only where it would not load as another type.
    const implicit = resolvesToItself || !mayLoadAsOtherType(text);
    if (implicit && analysis.allowPlain && !(simpleKey && (analysis.empty || analysis.multiline))) this.writePlain(text, split, context.root === true);
    else if (analysis.allowSingleQuoted && !(simpleKey && analysis.multiline)) this.writeSingleQuoted(text, split);
    else this.writeDoubleQuoted(text, split);
    this.indent = this.indents.pop()!;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent === null) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private write(data: string): void {
    this.out += data;
    this.column += data.length;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    this.write(this.whitespace || !needWhitespace ? indicator : ` ${indicator}`);
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.openEnded = false;
  }

  private writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.writeLineBreak();
    if (this.column < indent) {
      this.whitespace = true;
      this.write(" ".repeat(indent - this.column));
    }
  }

  private writeLineBreak(): void {
    this.out += "\n";
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
  }

  /** Plain text has no line breaks here (a multi-line string is never written plain). */
  private writePlain(text: CodePoints, split: boolean, root: boolean): void {
    if (root) this.openEnded = true;
    if (text.length === 0) return;
    if (!this.whitespace) this.write(" ");
    this.whitespace = false;
    this.indention = false;
    // Only a space can be where a line is folded.
    if (typeof text === "string" && !text.includes(" ")) return this.write(text);
    let spaces = false;
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = text[end];
      if (spaces) {
        if (ch !== " ") {
          // A single space past the width becomes a line break.
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else {
            this.write(spanOf(text, start, end));
          }
          start = end;
        }
      } else if (ch === undefined || ch === " ") {
        this.write(spanOf(text, start, end));
        start = end;
      }
      spaces = ch === " ";
    }
  }

  private writeSingleQuoted(text: CodePoints, split: boolean): void {
    this.writeIndicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    const length = text.length;
    for (let end = 0; end <= length; end++) {
      const ch = text[end];
      if (spaces) {
        if (ch !== " ") {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== length) this.writeIndent();
          else this.write(spanOf(text, start, end));
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !isBreak(ch)) {
          // YAML folds a lone line break into a space: each one is written twice.
          if (text[start] === "\n") this.writeLineBreak();
          for (let at = start; at < end; at++) this.writeLineBreak();
          this.writeIndent();
          start = end;
        }
      } else if ((ch === undefined || ch === " " || ch === "'" || isBreak(ch)) && start < end) {
        this.write(spanOf(text, start, end));
        start = end;
      }
      if (ch === "'") {
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === " ";
        breaks = isBreak(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  private writeDoubleQuoted(text: CodePoints, split: boolean): void {
    this.writeIndicator('"', true);
    let start = 0;
    const length = text.length;
    for (let end = 0; end <= length; end++) {
      const ch = text[end];
      if (ch === undefined || ch === '"' || ch === "\\" || !(ch >= " " && ch <= "~")) {
        if (start < end) {
          this.write(spanOf(text, start, end));
          start = end;
        }
        if (ch !== undefined) {
          this.write(`\\${NAMED_ESCAPES[ch] ?? numericEscape(ch.codePointAt(0)!)}`);
          start = end + 1;
        }
      }
      // Folded with a backslash at the line's end; a space that would open the next line is escaped.
      if (end > 0 && end < length - 1 && (ch === " " || start >= end) && this.column + (end - start) > BEST_WIDTH && split) {
        this.write(`${spanOf(text, start, end)}\\`);
        if (start < end) start = end;
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (text[start] === " ") this.write("\\");
      }
    }
    this.writeIndicator('"', false);
  }
}

function numericEscape(code: number): string {
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return `x${hex.padStart(2, "0")}`;
  if (code <= 0xffff) return `u${hex.padStart(4, "0")}`;
  return `U${hex.padStart(8, "0")}`;
}

/** PyYAML's float: `repr`, with `.0` added to a mantissa without a point (`1e-05` → `1.0e-05`). */
function floatText(x: number): string {
  if (Number.isNaN(x)) return ".nan";
  if (x === Infinity) return ".inf";
  if (x === -Infinity) return "-.inf";
  const repr = pythonFloatRepr(x);
  return repr.includes(".") || !repr.includes("e") ? repr : repr.replace("e", ".0e");
}

/** `yaml.safe_dump(value, sort_keys=False)`. */
export function pythonSafeDump(value: unknown): string {
  return new SafeDumper().document(value);
}
