/**
 * How numbers and reasons read on the console, for people: scores rounded to a few significant
 * digits (the files keep full precision), reasons on one line, durations and money short, and
 * colour only on a terminal that has not asked for none (`NO_COLOR`, https://no-color.org).
 */
import { pythonFloatRepr } from "../codec/python-json.js";
import { usdForPeople } from "../codec/usd-for-people.js";

/**
 * A score as people read it: `digits` significant digits, written the way the files write
 * floats (`-0.053`, `-3.0`, `1e-05`); digits left of the point are never dropped (`12346.0`).
 * `null` (no score) is `none`.
 */
export function roundForPeople(x: number | null, digits = 4): string {
  if (x === null) return "none";
  if (!Number.isFinite(x) || x === 0) return pythonFloatRepr(x);
  const integerDigits = Math.floor(Math.log10(Math.abs(x))) + 1;
  const rounded = integerDigits >= digits ? Math.round(x) : Number(x.toPrecision(digits));
  return pythonFloatRepr(rounded);
}

/** Longest reason shown on a console line; the job's files hold the whole text. */
export const REASON_MAX_CHARS = 240;

/**
 * A job's feedback as one console line: its first non-empty line, control characters (a task's
 * escape sequences, tabs) turned into spaces, cut at `max` characters with `…`; a reason of
 * several lines ends with ` …` so nobody takes the first line for all of it.
 */
export function reasonLine(feedback: string, max = REASON_MAX_CHARS): string {
  const lines = feedback
    .split(/\r?\n|\r/)
    .map((line) => line.replace(/[\x00-\x1f\x7f-\x9f]/g, " ").replace(/ {2,}/g, " ").trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0) return "(no reason recorded)";
  const first = lines[0]!;
  if (first.length > max) return `${first.slice(0, max - 1)}…`;
  return lines.length > 1 ? `${first} …` : first;
}

/** Seconds as `42s`, `3m05s`, `2h07m`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** USD with four decimals (`$0.0123`; `<$0.0001` for less that is not zero): usd-for-people.ts. */
export const formatUsd = usdForPeople;

export { llmSpending, type LlmSpending } from "../events/llm-spending.js";

/** Whether to colour a stream: only a terminal, and never when `NO_COLOR` is set to anything but "". */
export function useColor(out: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

const SGR = { red: 31, green: 32, yellow: 33 } as const;

/** `text` in `color` when `on`. */
export const paint = (on: boolean, color: keyof typeof SGR, text: string): string => (on ? `\x1b[${SGR[color]}m${text}\x1b[39m` : text);

/** The colour of a finished status: green ok, red failed/timeout, yellow the rest. */
export function statusColor(status: string): keyof typeof SGR {
  if (status === "ok") return "green";
  if (status === "failed" || status === "timeout") return "red";
  return "yellow";
}
