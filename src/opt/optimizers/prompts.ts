/**
 * The prompts of the OptoPrime family and OPRO (algorithms reference §2.2–2.4), in our own words:
 * the same sections, order, value formats and reply formats as OpenTrace, so a model that does
 * well there sees the same problem here.
 */
import type { JsonValue } from "../../domain/json-value.js";
import { renderValue, type ProblemInstance, type ProblemNode, type ProblemVariable } from "../problem.js";

export interface MemoryEntry {
  readonly variables: Readonly<Record<string, JsonValue>>;
  readonly feedback: string;
}

const SEPARATOR = "================================";

// ---------------------------------------------------------------- OptoPrimeV2 (XML)

export const V2_REPRESENTATION = `You are asked to solve a coding or algorithm problem. You will see an instruction, the code, the documentation of each function the code calls, and feedback on the result of running it.

A problem has these parts:
- #Instruction: what you need to do or the question you should answer.
- #Code: the code of the problem.
- #Documentation: what each function in #Code does. It may be incomplete or high level; use the values in #Others to infer how the functions behave.
- #Variables: the input variables you may change (they are trainable).
- #Inputs: fixed inputs of the code, which you CANNOT change.
- #Others: intermediate values produced while the code ran.
- #Outputs: what the code returned.
- #Feedback: feedback on the result of running the code.

In #Variables, #Inputs, #Outputs and #Others, values are written like this.

A variable:
<variable name="variable_name" type="data_type">
<value>
value
</value>
<constraint>
constraint_expression
</constraint>
</variable>

Any other value:
<node name="node_name" type="data_type">
<value>
value
</value>
</node>

When data_type is code, the value is the source code of a function, possibly with its docstring.`;

const xmlOutputFormat = (reasoning: string) => `Reply in this XML format:

<reasoning>
Why you suggest the new values (or why nothing should change).
</reasoning>

<variable>
<name>variable_1_name</name>
<value>
new value of variable_1
</value>
</variable>

<variable>
<name>variable_2_name</name>
<value>
new value of variable_2
</value>
</variable>

${reasoning}

Write one <variable> block for each variable you want to change. You may change only the values in #Variables. When a variable's type is code, write its complete new definition as code without syntax errors, and keep the function name and signature.

If no change is needed, output only TERMINATE.`;

export const XML_OUTPUT_FORMAT = xmlOutputFormat(
  "In <reasoning>, work through: 1. what the #Instruction means; 2. what the #Feedback on the #Outputs implies for the #Variables, given how #Code uses them and the values in #Documentation, #Inputs and #Others; 3. which changes to the #Variables you suggest and what result you expect.",
);

/** OPROv2 shows no graph, so its reasoning steps name only the parts it has (parity scenario default-optimizer). */
export const OPRO_V2_OUTPUT_FORMAT = xmlOutputFormat(
  "In <reasoning>, work through: 1. what the #Instruction asks of the solution; 2. what the #Feedback implies for the #Variables; 3. which changes to the #Variables you suggest and what result you expect.",
);

/**
 * Values of non-trainable nodes are cut at 2000 characters; variables never are, except OPROv2's
 * solutions, whose code keeps its definition line and doc comment whole and cuts the body
 * (parity scenario prompt-truncation).
 */
const NODE_CHAR_LIMIT = 2000;
const clip = (text: string) => (text.length > NODE_CHAR_LIMIT ? `${text.slice(0, NODE_CHAR_LIMIT)}...(skipped due to length limit)` : text);

/** A function's source split into its head (definition line, then a docstring or doc comment) and body. */
export function splitCodeHead(source: string): { readonly head: string; readonly body: string } {
  const lines = source.split("\n");
  let end = 1;
  const next = (lines[end] ?? "").trim();
  const closer = next.startsWith('"""') ? '"""' : next.startsWith("'''") ? "'''" : next.startsWith("/*") ? "*/" : null;
  if (closer !== null) {
    // The docstring may close on its own first line.
    const first = next.slice(closer === "*/" ? 2 : 3);
    while (end < lines.length && !(end === 1 ? first : lines[end]!).includes(closer)) end++;
    end = Math.min(end + 1, lines.length);
  } else {
    while (end < lines.length && lines[end]!.trim().startsWith("//")) end++;
  }
  const head = lines.slice(0, end).join("\n");
  return end >= lines.length ? { head, body: "" } : { head: `${head}\n`, body: lines.slice(end).join("\n") };
}

const clipSolution = (v: ProblemVariable, value: string) => {
  if (v.kind !== "code") return clip(value);
  const { head, body } = splitCodeHead(value);
  return head + clip(body);
};

const xmlVariable = (v: ProblemVariable, tag = "variable", clipValue = false) => {
  const value = renderValue(v.value, v.kind);
  return (
    `<${tag} name="${v.name}" type="${v.type}">\n<value>\n${clipValue ? clipSolution(v, value) : value}\n</value>\n` +
    (v.description || v.kind === "code" ? `<constraint>\n${v.description}\n</constraint>\n` : "") +
    `</${tag}>`
  );
};
const xmlNode = (n: ProblemNode) => `<node name="${n.name}" type="${n.type}">\n<value>\n${clip(n.value)}\n</value>\n</node>`;

function xmlMemory(memory: readonly MemoryEntry[]): string {
  if (memory.length === 0) return "";
  const rounds = memory.map((entry, i) => {
    const vars = Object.entries(entry.variables).map(([name, value]) => `<variable>\n<name>${name}</name>\n<value>\n${renderValue(value)}\n</value>\n</variable>`);
    return `<round ${i + 1}>\n${vars.join("\n")}\n<feedback>\n${entry.feedback}\n</feedback>\n</round ${i + 1}>`;
  });
  return `Below are the variables you tried before and the feedback they received.\n\n${rounds.join("\n\n")}\n\n`;
}

export function v2UserPrompt(objective: string, problem: ProblemInstance, memory: readonly MemoryEntry[]): string {
  const docs = Object.entries(problem.documentation).map(([name, doc]) => `[${name}] ${doc}`);
  const sections = [
    ["# Instruction", objective],
    ["# Code", problem.code],
    ["# Documentation", docs.join("\n")],
    ["# Variables", problem.variables.map((v) => xmlVariable(v)).join("\n")],
    ["# Inputs", problem.inputs.map(xmlNode).join("\n")],
    ["# Others", problem.others.map(xmlNode).join("\n")],
    ["# Outputs", problem.outputs.map(xmlNode).join("\n")],
    ["# Feedback", problem.feedback],
  ];
  const names = problem.variables.map((v) => v.name).join(", ");
  return [
    "Now you see the problem instance:",
    "",
    SEPARATOR,
    sections.map(([title, body]) => `${title}\n${body}`).join("\n\n"),
    SEPARATOR,
    "",
    `${xmlMemory(memory)}What are your suggestions on variables ${names}?`,
    "",
    "Your response:",
  ].join("\n");
}

// ---------------------------------------------------------------- OPROv2 (XML, reduced template)

export const OPRO_V2_REPRESENTATION = `You are asked to change a proposed solution according to feedback on it.

A problem has these parts:
- #Instruction (written under # Problem Context): what the solution is for.
- #Variables (written under # Solution): the current solution, which you may change.
- #Feedback: feedback on the current solution.

The solution is written like this:
<solution name="variable_name" type="data_type">
<value>
value
</value>
<constraint>
constraint_expression
</constraint>
</solution>

When data_type is code, the value is the source code of a function.`;

export function oproV2UserPrompt(objective: string, problem: ProblemInstance, memory: readonly MemoryEntry[]): string {
  const names = problem.variables.map((v) => v.name).join(", ");
  const solution = problem.variables.map((v) => xmlVariable(v, "solution", true)).join("\n");
  return [
    "Now you see the problem instance:",
    "",
    SEPARATOR,
    `# Problem Context\n${objective}`,
    "",
    `# Solution\n${solution}`,
    "",
    `# Feedback\n${problem.feedback}`,
    SEPARATOR,
    "",
    `${xmlMemory(memory)}What are your revised solutions on ${names}?`,
    "",
    "Your response:",
  ].join("\n");
}

// ---------------------------------------------------------------- OptoPrime V1 (JSON)

export const V1_REPRESENTATION = `You are asked to solve a coding or algorithm problem. You will see an instruction, the code, the documentation of each function the code calls, and feedback on the result of running it.

A problem has these parts:
- #Instruction: what you need to do or the question you should answer.
- #Code: the code of the problem.
- #Documentation: what each function in #Code does. It may be incomplete; use the values in #Others to infer how the functions behave.
- #Variables: the input variables you may change.
- #Constraints: constraints on or descriptions of the variables in #Variables.
- #Inputs: fixed inputs of the code, which you CANNOT change.
- #Others: intermediate values produced while the code ran.
- #Outputs: what the code returned.
- #Feedback: feedback on the result of running the code.

In #Variables, #Inputs, #Outputs and #Others, each line has the form:
<data_type> <variable_name> = <value>
When data_type is (code), the value is the source code of a function.`;

export const JSON_OUTPUT_FORMAT = `Reply in this JSON format:
{
  "reasoning": <your reasoning>,
  "answer": <your answer, if the instruction asks a question>,
  "suggestion": {
    <variable_1>: <suggested value>,
    <variable_2>: <suggested value>
  }
}

In "reasoning", work through: 1. what the #Instruction means; 2. what the #Feedback on the #Outputs implies for the #Variables, given the #Code, #Documentation, #Inputs and #Others; 3. the change you suggest and the result you expect.

You may change only the values in #Variables. For a (code) variable, give its complete new definition as valid code, keeping the function name and signature.

If no change is needed, output TERMINATE.`;

/** `(type) name=value`; code values are written `(code) name:source`, as OpenTrace does. */
const v1Line = (name: string, type: string, value: string) => (type === "code" ? `(code) ${name}:${value}` : `(${type}) ${name}=${value}`);

function jsonMemory(memory: readonly MemoryEntry[]): string {
  if (memory.length === 0) return "";
  const entries = memory.map((m) => JSON.stringify({ variables: m.variables, feedback: m.feedback }, null, 4));
  return `Below are some variables and the feedback you received for them in the past.\n\n${entries.join("\n\n")}\n\n`;
}

export function v1UserPrompt(objective: string, problem: ProblemInstance, memory: readonly MemoryEntry[]): string {
  const docs = Object.entries(problem.documentation).map(([name, doc]) => `[${name}] ${doc}`);
  const nodes = (list: readonly ProblemNode[]) => list.map((n) => v1Line(n.name, n.type, clip(n.value))).join("\n");
  const sections = [
    ["#Instruction", objective],
    ["#Code", problem.code],
    ["#Documentation", docs.join("\n")],
    ["#Variables", problem.variables.map((v) => v1Line(v.name, v.type, renderValue(v.value, v.kind))).join("\n")],
    ["#Constraints", problem.variables.filter((v) => v.description).map((v) => `(${v.type}) ${v.name}: ${v.description}`).join("\n")],
    ["#Inputs", nodes(problem.inputs)],
    ["#Others", nodes(problem.others)],
    ["#Outputs", nodes(problem.outputs)],
    ["#Feedback", problem.feedback],
  ];
  return ["Now you see the problem instance:", "", SEPARATOR, sections.map(([t, b]) => `${t}\n${b}`).join("\n\n"), SEPARATOR, "", `${jsonMemory(memory)}Your response:`].join("\n");
}

// ---------------------------------------------------------------- OPRO (JSON, example history)

export function oproUserPrompt(objective: string, examples: readonly MemoryEntry[]): string {
  const shown = examples.map((e) => JSON.stringify({ variables: e.variables, feedback: e.feedback }, null, 4));
  // The objective is the prompt's last line, as in the reference.
  return ["Below are some example variables and their feedbacks.", "", shown.join("\n\n"), "", SEPARATOR, "", objective].join("\n");
}
