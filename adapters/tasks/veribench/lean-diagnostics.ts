/**
 * Lean's messages (`<file>:<line>:<column>: error: <text>`, continued on the lines that follow) and
 * the feedback the compiler guide gives from them: each error with the block of code it is in (the
 * declaration around the line, found by indentation), as the original's Lean guide does.
 */

export interface LeanDiagnostic {
  /** 1-based, as Lean prints it. */
  readonly line: number;
  readonly column: number;
  readonly severity: string;
  readonly message: string;
}

const HEADER = /^(.*?):(\d+):(\d+): (error|warning|info|information)(?:\([^)]*\))?: ?(.*)$/;

/** The messages about `file` in Lean's output, in order; text that belongs to no message is dropped. */
export function parseDiagnostics(output: string, file: string): LeanDiagnostic[] {
  const out: { line: number; column: number; severity: string; lines: string[] }[] = [];
  for (const text of output.split(/\r?\n/)) {
    const header = HEADER.exec(text);
    if (header !== null && (header[1] === file || header[1]!.endsWith(`/${file}`))) {
      out.push({ line: Number(header[2]), column: Number(header[3]), severity: header[4]!, lines: [header[5]!] });
    } else if (out.length > 0 && text !== "") {
      out[out.length - 1]!.lines.push(text);
    }
  }
  return out.map((d) => ({ line: d.line, column: d.column, severity: d.severity, message: d.lines.join("\n").trim() }));
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The declaration around a 1-based line: up to the nearest unindented line, down to the next one. */
export function blockAround(source: string, line: number, maxLines = 20): string {
  const lines = source.split("\n");
  const at = Math.min(Math.max(line - 1, 0), lines.length - 1);
  let start = at;
  while (start > 0 && (lines[start]!.trim() === "" || indentOf(lines[start]!) > 0)) start--;
  let end = at + 1;
  while (end < lines.length && (lines[end]!.trim() === "" || indentOf(lines[end]!) > 0)) end++;
  const block = lines.slice(start, Math.min(end, start + maxLines));
  while (block.length > 1 && block[block.length - 1]!.trim() === "") block.pop();
  const width = String(start + block.length).length;
  return block.map((text, i) => `${String(start + i + 1).padStart(width)} | ${text}`).join("\n");
}

export function failureFeedback(errors: readonly LeanDiagnostic[], source: string): string {
  const parts = errors.map((e, i) => `Error ${i + 1} at line ${e.line}, column ${e.column}:\n${e.message}\nIn this code:\n${blockAround(source, e.line)}`);
  return [`Lean compilation FAILED with ${errors.length} error(s). Fix every error; the code must compile.`, ...parts].join("\n\n");
}
