/**
 * Reading an optimizer LLM's reply (algorithms reference §2.2–2.3). Both parsers are tolerant:
 * whatever they cannot read yields an empty suggestion plus a note, never an exception.
 *
 * Like the reference optimizers (OptoPrime, OptoPrimeV2, OPRO, OPROv2: parity scenario
 * terminate-anywhere), a reply that contains the uppercase word TERMINATE anywhere — in the
 * reasoning, after the variable blocks, or alone — is discarded whole: nothing is suggested even
 * when it also holds valid variable blocks. Lowercase "terminate" is ordinary text.
 */

export interface ParsedReply {
  readonly reasoning: string;
  /** Variable name → proposed value (raw: strings, or JSON values from a JSON reply). */
  readonly suggestion: Readonly<Record<string, unknown>>;
  /** The LLM said no change is needed (TERMINATE) and proposed nothing. */
  readonly terminated: boolean;
  /** Why nothing could be read, when nothing could. */
  readonly problem?: string;
}

const isTerminate = (text: string) => text.includes("TERMINATE");

/** A reply with TERMINATE anywhere proposes nothing (the reference discards it whole). */
function terminated(reasoning: string): ParsedReply {
  return { reasoning, suggestion: {}, terminated: true };
}

function firstBlock(text: string, tag: string): { inner: string; end: number } | null {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return null;
  const close = text.indexOf(`</${tag}>`, open);
  if (close < 0) return null;
  return { inner: text.slice(open + tag.length + 2, close), end: close + tag.length + 3 };
}

/** Top-level `<variable>...</variable>` blocks, nesting-aware. */
function variableBlocks(text: string): string[] {
  const blocks: string[] = [];
  const pattern = /<(\/?)variable>/g;
  let depth = 0;
  let start = -1;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m[1] === "") {
      if (depth === 0) start = m.index + m[0].length;
      depth++;
    } else if (depth > 0) {
      depth--;
      if (depth === 0) blocks.push(text.slice(start, m.index));
    }
  }
  return blocks;
}

/** OptoPrimeV2 / OPROv2 replies: `<reasoning>` then `<variable><name/><value/></variable>` blocks. */
export function parseXmlReply(text: string, codeNames: ReadonlySet<string> = new Set()): ParsedReply {
  const reasoningOpen = text.indexOf("<reasoning>");
  const reasoning = firstBlock(text, "reasoning");
  // Variables count only after a closed reasoning block (or anywhere when there is none).
  const body = reasoning ? text.slice(reasoning.end) : reasoningOpen >= 0 ? "" : text;
  const suggestion: Record<string, string> = {};
  for (const block of variableBlocks(body)) {
    const name = firstBlock(block, "name")?.inner.trim() ?? "";
    const value = firstBlock(block, "value")?.inner.trim();
    if (name === "" || value === undefined) continue;
    if (codeNames.has(name) && value === "") continue;
    suggestion[name] = value;
  }
  if (isTerminate(text)) return terminated(reasoning?.inner.trim() ?? "");
  const empty = Object.keys(suggestion).length === 0;
  const problem = empty ? (reasoningOpen >= 0 && !reasoning ? "unclosed <reasoning> block" : "no <variable> block with a <name> and a <value>") : undefined;
  return { reasoning: reasoning?.inner.trim() ?? "", suggestion, terminated: false, ...(problem ? { problem } : {}) };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function trimKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.trim(), v]));
}

/** OptoPrime / OPRO replies: `{"reasoning", "answer", "suggestion": {...}}`, possibly fenced or wrapped. */
export function parseJsonReply(text: string, codeNames: ReadonlySet<string> = new Set()): ParsedReply {
  const fenced = /```(?:[a-zA-Z]*)\n?([\s\S]*?)```/.exec(text);
  const candidate = fenced ? fenced[1]! : text;
  let parsed = tryJson(candidate);
  if (parsed === undefined) {
    const span = /\{[\s\S]*\}/.exec(candidate);
    if (span) parsed = tryJson(span[0]);
  }
  let suggestion: Record<string, unknown> = {};
  let reasoning = "";
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    const obj = trimKeys(parsed) as Record<string, unknown>;
    reasoning = typeof obj.reasoning === "string" ? obj.reasoning : "";
    // Without a "suggestion" key the whole object is the suggestion (minus the format's other keys).
    const raw = "suggestion" in obj ? obj.suggestion : Object.fromEntries(Object.entries(obj).filter(([k]) => k !== "reasoning" && k !== "answer"));
    if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) suggestion = trimKeys(raw) as Record<string, unknown>;
  }
  if (Object.keys(suggestion).length === 0) {
    // Last resort: the "suggestion": {...} body's "key": "value" pairs.
    const body = /"suggestion"\s*:\s*\{([\s\S]*?)\}/.exec(text);
    if (body) for (const m of body[1]!.matchAll(/"([^"]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) suggestion[m[1]!.trim()] = m[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"');
  }
  for (const name of codeNames) if (typeof suggestion[name] === "string" && (suggestion[name] as string).trim() === "") delete suggestion[name];
  if (isTerminate(text)) return terminated(reasoning);
  const empty = Object.keys(suggestion).length === 0;
  const problem = empty ? (parsed === undefined ? "reply is not JSON and has no \"suggestion\" entries" : "reply has no suggestion") : undefined;
  return { reasoning, suggestion, terminated: false, ...(problem ? { problem } : {}) };
}
