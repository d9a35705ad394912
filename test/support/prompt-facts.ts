/**
 * The facts the parity recordings hold about an OptoPrimeV2 / OPROv2 request (sections, variables,
 * #Code lines, documented ops, nodes, feedback, memory rounds), read back from our prompts, with
 * graph names normalised the way the recordings write them (digits as `#`, no `_copy` suffix).
 */
import type { ChatRequest } from "../../src/llm/llm.js";

export interface ShownNode {
  readonly name: string;
  readonly type: string;
  readonly value: string;
}

export interface PromptFacts {
  readonly sections: string[];
  readonly variables: ShownNode[];
  readonly closing_names: string[];
  readonly code_lines: { target: string; op: string }[];
  readonly documented_ops: string[];
  readonly nodes: Record<string, ShownNode[]>;
  readonly feedback: string;
  readonly memory_rounds: number;
  readonly system_section_refs: string[];
}

const SEPARATOR = "================================";

/** A graph name as the recordings compare it: digits as `#`, copies named as their originals. */
export const graphName = (name: string) => name.replace(/\d+/g, "#").replace(/(_copy#)+$/, "");

/**
 * A Trace node name (`float:1`, `__code0_copy:0`) as the recordings compare it: digits as `#`, a
 * copy (Trace names the copy of `base:k` `basek_copy:j`) named as its original: `__code:#`.
 */
export const traceName = (name: string) => name.replace(/^(.*?)\d+_copy:\d+$/, "$1:0").replace(/\d+/g, "#");

/** A shown value as the recordings write it: code as `<code>`, an object's repr as `<object repr>`. */
function shownValue(type: string, value: string): string {
  if (type === "code") return "<code>";
  if (/^<\w+ object>$/.test(value)) return "<object repr>";
  return value;
}

const content = (request: ChatRequest, role: string) =>
  request.messages
    .filter((m) => m.role === role)
    .map((m) => m.content)
    .join("\n");

export function promptFacts(request: ChatRequest): PromptFacts {
  const user = content(request, "user");
  const problem = user.split(SEPARATOR)[1] ?? "";
  const headers = [...problem.matchAll(/^# (.+)$/gm)];
  const body = (title: string) => {
    const at = headers.findIndex((h) => h[1] === title);
    if (at < 0) return "";
    const start = headers[at]!.index + headers[at]![0].length + 1;
    return problem.slice(start, headers[at + 1]?.index ?? problem.length);
  };
  const nodes = (text: string, tag: string) =>
    [...text.matchAll(new RegExp(`<${tag} name="([^"]*)" type="([^"]*)">\\n<value>\\n([\\s\\S]*?)\\n</value>`, "g"))].map(([, name, type, value]) => ({
      name: graphName(name!),
      type: type!,
      value: shownValue(type!, value!),
    }));
  const variablesSection = body("Variables") || body("Solution");
  const closing = /What are your (?:suggestions on variables|revised solutions on) (.*)\?/.exec(user)?.[1] ?? "";
  const system = content(request, "system");
  const refs = [...system.matchAll(/#(Instruction|Code|Documentation|Variables|Constraints|Inputs|Others|Outputs|Feedback)\b/g)].map((m) => m[1]!);
  return {
    sections: headers.map((h) => h[1]!),
    variables: nodes(variablesSection, "(?:variable|solution)"),
    closing_names: closing === "" ? [] : closing.split(", ").map(graphName),
    code_lines: [...body("Code").matchAll(/^(\S+) = (\w+)\(/gm)].map(([, target, op]) => ({ target: graphName(target!), op: op! })),
    documented_ops: [...body("Documentation").matchAll(/^\[(\w+)\]/gm)].map((m) => m[1]!),
    nodes: Object.fromEntries(["Inputs", "Others", "Outputs"].filter((t) => headers.some((h) => h[1] === t)).map((t) => [t, nodes(body(t), "node")])),
    feedback: body("Feedback").trim(),
    memory_rounds: (user.match(/<round \d+>/g) ?? []).length,
    system_section_refs: [...new Set(refs)],
  };
}

/** A recorded call's facts, normalised like `promptFacts` (graph names, trimmed feedback). */
export function recordedFacts(call: Record<string, any>): Omit<PromptFacts, "code_lines" | "documented_ops" | "nodes"> & Partial<PromptFacts> {
  const norm = (n: ShownNode) => ({ name: graphName(n.name), type: n.type, value: n.value });
  return {
    sections: call.sections,
    variables: call.variables.map(norm),
    closing_names: call.closing_names.map(graphName),
    ...(call.code_lines ? { code_lines: call.code_lines } : {}),
    ...(call.documented_ops ? { documented_ops: call.documented_ops } : {}),
    nodes: Object.fromEntries(Object.entries(call.nodes as Record<string, ShownNode[]>).map(([k, v]) => [k, v.map(norm)])),
    feedback: String(call.feedback).trim(),
    memory_rounds: call.memory_rounds,
    system_section_refs: call.system_section_refs,
  };
}

/** A reply naming the prompt's first (or k-th) float variable, as the recordings' `float:k` selectors do. */
export function floatReply(value: number, k = 0): (request: ChatRequest) => string {
  return (request) => {
    const floats = [...content(request, "user").matchAll(/<(?:variable|solution) name="([^"]*)" type="float">/g)].map((m) => m[1]!);
    const name = floats[k];
    if (name === undefined) throw new Error(`the prompt shows no float variable #${k}`);
    return `<reasoning>\nscripted\n</reasoning>\n<variable>\n<name>${name}</name>\n<value>\n${value}\n</value>\n</variable>`;
  };
}
