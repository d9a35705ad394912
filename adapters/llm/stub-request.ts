/**
 * What a request asks of the stub LLM, read from its messages the way a model reads them: the
 * reply format the instructions name, and each variable's name, type and current value as the
 * prompt shows them (OptoPrimeV2/OPROv2 tags, OptoPrime `(type) name=value` lines, OPRO's JSON
 * examples, TextGrad's <ROLE> and <LM_INPUT>).
 */
import type { JsonValue } from "../../src/domain/json-value.js";
import type { ParameterKind } from "../../src/domain/parameter.js";
import type { ChatRequest } from "../../src/llm/llm.js";

export interface AskedVariable {
  readonly name: string;
  readonly kind: ParameterKind;
  readonly value: JsonValue;
}

export type StubRequest =
  | { readonly kind: "propose"; readonly format: "xml" | "json"; readonly variables: readonly AskedVariable[] }
  /** TextGrad's update: one variable's new value inside <IMPROVED_VARIABLE> tags. */
  | { readonly kind: "improve"; readonly variable?: AskedVariable }
  | { readonly kind: "text" };

/** The Python type names prompts show; any other (list, dict, NoneType) is a JSON value. */
const KIND_OF_TYPE: Readonly<Record<string, ParameterKind>> = { float: "number", int: "integer", str: "text", code: "code" };

function variableOfType(name: string, type: string, shown: string): AskedVariable {
  const kind = Object.hasOwn(KIND_OF_TYPE, type) ? KIND_OF_TYPE[type]! : "json";
  if (kind === "number" || kind === "integer") return { name, kind, value: Number(shown) };
  if (kind !== "json") return { name, kind, value: shown };
  if (shown === "None") return { name, kind, value: null };
  try {
    return { name, kind, value: JSON.parse(shown) as JsonValue };
  } catch {
    return { name, kind, value: shown };
  }
}

/** OptoPrimeV2's `<variable name type>` and OPROv2's `<solution name type>` blocks. */
function taggedVariables(prompt: string): AskedVariable[] {
  const blocks = prompt.matchAll(/<(?:variable|solution) name="([^"]*)" type="([^"]*)">\n<value>\n([\s\S]*?)\n<\/value>/g);
  return [...blocks].map(([, name, type, shown]) => variableOfType(name!, type!, shown!));
}

/** OptoPrime's #Variables section: `(type) name=value` lines, code as `(code) name:source` over several lines. */
function lineVariables(section: string): AskedVariable[] {
  const starts = [...section.matchAll(/^\((float|int|str|code|list|dict|NoneType)\) ([^\s=:]+)[=:]/gm)];
  return starts.map((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.index - 1 : section.length;
    return variableOfType(start[2]!, start[1]!, section.slice(start.index + start[0].length, end));
  });
}

/** OPRO's examples are JSON objects `{"variables": {...}, "feedback": ...}`; the last holds the current values. */
function exampleVariables(prompt: string): AskedVariable[] {
  const last = [...prompt.matchAll(/^\{\n[\s\S]*?\n\}$/gm)].at(-1)?.[0];
  let variables: unknown;
  try {
    variables = last === undefined ? undefined : (JSON.parse(last) as { variables?: unknown }).variables;
  } catch {
    return [];
  }
  if (variables === null || typeof variables !== "object" || Array.isArray(variables)) return [];
  // OPRO shows no types: a JSON number reads as a float, a string as text.
  return Object.entries(variables as Record<string, JsonValue>).map(([name, value]) => ({
    name,
    kind: typeof value === "number" ? "number" : typeof value === "string" ? "text" : "json",
    value,
  }));
}

/** TextGrad's update prompt: `<ROLE>type variable 'name' ...` and the whole value in the conversation's <LM_INPUT>. */
function improvedVariable(prompt: string): AskedVariable | undefined {
  const role = /<ROLE>\s*(\w+) variable '([^']*)'/.exec(prompt);
  // <VARIABLE> shows long values shortened; <LM_INPUT> shows them whole.
  const shown = /<LM_INPUT> ([\s\S]*?) <\/LM_INPUT>/.exec(prompt) ?? /<VARIABLE> ([\s\S]*?) <\/VARIABLE>/.exec(prompt);
  return role && shown ? variableOfType(role[2]!, role[1]!, shown[1]!) : undefined;
}

export function readStubRequest(request: ChatRequest): StubRequest {
  const instructions = request.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
  const prompt = request.messages.filter((m) => m.role !== "system").map((m) => m.content).join("\n");
  const format = /Reply in this (XML|JSON) format/.exec(instructions)?.[1];
  if (format === "XML") return { kind: "propose", format: "xml", variables: taggedVariables(prompt) };
  if (format === "JSON") {
    const section = /\n#Variables\n([\s\S]*?)\n\n#Constraints\n/.exec(prompt)?.[1];
    return { kind: "propose", format: "json", variables: section === undefined ? exampleVariables(prompt) : lineVariables(section) };
  }
  if (instructions.includes("<IMPROVED_VARIABLE>")) {
    const variable = improvedVariable(prompt);
    return variable ? { kind: "improve", variable } : { kind: "improve" };
  }
  return { kind: "text" };
}
