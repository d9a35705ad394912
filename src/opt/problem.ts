/**
 * The problem an optimizer shows the LLM: the TypeScript analogue of Trace's graph summary. It
 * carries each trainable parameter's value and description, the code that uses them, the batch
 * of inputs and outputs, and the guide's feedback, batched like Trace's `batchify`
 * (`ID [i]: <item>` per example).
 */
import { pythonFloatRepr } from "../codec/python-json.js";
import type { Agent } from "../domain/agent.js";
import type { JsonValue } from "../domain/json-value.js";
import type { ParameterKind, ParameterSpec, ParameterValues } from "../domain/parameter.js";
import type { Rollout } from "./rollout.js";
import type { Node } from "./trace/node.js";
import { summarizeTrace } from "./trace/summary.js";

export interface ProblemVariable {
  /** The name the LLM sees: the graph name (`float0`, `__code0`) for a traced agent. */
  readonly name: string;
  /** The parameter the value belongs to (its name in the job's values); default `name`. */
  readonly parameter?: string;
  readonly kind: ParameterKind;
  /** The Python type name shown to the LLM: float, int, str, code, list, dict. */
  readonly type: string;
  readonly value: JsonValue;
  readonly description: string;
}

export interface ProblemNode {
  readonly name: string;
  readonly type: string;
  readonly value: string;
}

/** One node of a problem's traced graph, as TextGrad walks it. */
export interface ProblemGraphNode {
  readonly name: string;
  readonly type: string;
  /** The value as the prompts show it. */
  readonly value: string;
  readonly description: string;
  readonly kind: "node" | "parameter" | "message" | "exception";
  /** The op that produced it (a message node). */
  readonly op?: string;
  /** Indices (into `ProblemGraph.nodes`) of its parents in the graph. */
  readonly parents: readonly number[];
  /** Set for a trainable parameter shown under #Variables: the variable's name. */
  readonly variable?: string;
}

/** The traced graph a problem was summarized from: nodes by level (roots first), the output last. */
export interface ProblemGraph {
  readonly nodes: readonly ProblemGraphNode[];
  readonly output: number;
  /** The variables (their names) in the model's parameter order. */
  readonly parameterOrder: readonly string[];
}

export interface ProblemInstance {
  /** Set when the agent is a Trace model: the graph the sections below were computed from. */
  readonly graph?: ProblemGraph;
  readonly code: string;
  readonly documentation: Readonly<Record<string, string>>;
  readonly variables: readonly ProblemVariable[];
  readonly inputs: readonly ProblemNode[];
  readonly others: readonly ProblemNode[];
  readonly outputs: readonly ProblemNode[];
  readonly feedback: string;
}

export function typeName(kind: ParameterKind, value: unknown): string {
  switch (kind) {
    case "number":
      return "float";
    case "integer":
      return "int";
    case "text":
      return "str";
    case "code":
      return "code";
    case "json":
      return Array.isArray(value) ? "list" : value === null ? "NoneType" : typeof value === "object" ? "dict" : typeof value === "number" ? "float" : "str";
  }
}

/** A value as Python's `str()` shows it: floats as `3.0`, None/True/False, JSON for containers. */
export function renderValue(value: unknown, kind?: ParameterKind): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return kind === "integer" || (kind === undefined && Number.isInteger(value) && !Object.is(value, -0)) ? String(value) : pythonFloatRepr(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Trace's `batchify`: one `ID [i]: <item>` line per example. */
export function batchify(items: readonly string[]): string {
  return items.map((item, i) => `ID [${i}]: ${item}\n`).join("");
}

export function problemVariables(parameters: readonly ParameterSpec[], values: ParameterValues): ProblemVariable[] {
  return parameters
    .filter((p) => p.trainable)
    .map((p) => {
      const value = values[p.name] ?? p.value;
      return { name: p.name, kind: p.kind, type: typeName(p.kind, value), value, description: p.description };
    });
}

export interface ProblemSource {
  readonly parameters: readonly ParameterSpec[];
  readonly values: ParameterValues;
  readonly agent: Agent;
  readonly rollouts: readonly Rollout[];
  /** Extra text appended to the feedback (e.g. BeamsearchHistory's history context). */
  readonly feedbackSuffix?: string;
}

/** The parameter a variable's value belongs to. */
export const parameterOf = (variable: ProblemVariable): string => variable.parameter ?? variable.name;

export function buildProblem(source: ProblemSource): ProblemInstance {
  const { parameters, values, agent, rollouts } = source;
  const traces = rollouts.map((r) => r.trace);
  if (rollouts.length > 0 && traces.every((t) => t !== undefined)) {
    return summarizeTrace(
      traces as Node[],
      batchify(rollouts.map((r) => r.feedback)) + (source.feedbackSuffix ?? ""),
      parameters,
    );
  }
  const fixed = parameters.filter((p) => !p.trainable);
  const program = agent.program;
  const names = parameters.map((p) => p.name).join(", ");
  return {
    code: program?.code ?? `output = ${agent.name}(input, ${names})`,
    documentation: program?.documentation ?? { [agent.name]: `Runs the agent on an input using the parameters ${names}.` },
    variables: problemVariables(parameters, values),
    inputs: [
      { name: "input", type: "str", value: batchify(rollouts.map((r) => renderValue(r.input))) },
      ...fixed.map((p) => ({ name: p.name, type: typeName(p.kind, values[p.name]), value: renderValue(values[p.name] ?? p.value, p.kind) })),
    ],
    others: [],
    outputs: [{ name: "output", type: "str", value: batchify(rollouts.map((r) => renderValue(r.response))) }],
    feedback: batchify(rollouts.map((r) => r.feedback)) + (source.feedbackSuffix ?? ""),
  };
}
