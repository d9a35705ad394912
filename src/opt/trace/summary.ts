/**
 * The problem an optimizer shows the LLM, read from a batch's traced graph as OpenTrace computes
 * it (algorithms reference §1.4 backward with the GraphPropagator, §2.2 `summarize`):
 *
 *  - the batch's outputs are joined by a `batchify` op, whose node is the problem's output;
 *  - feedback propagates from the output, highest level first, to every parent; only parents
 *    that depend on a trainable parameter propagate further. The graph is the output plus the
 *    parents of every node that propagated: each parameter's subgraph up to the output, and the
 *    fixed inputs of the ops on the way;
 *  - in level order, a node without parents (or with a parent outside the graph) is a root: a
 *    trainable parameter goes to #Variables, anything else to #Inputs; every other node is one
 *    line of #Code (`out = op(arg=in, ...)`, its op documented under #Documentation) and goes to
 *    #Outputs at the highest level, else to #Others.
 *
 * Names are given here, per problem: base name + running count in graph order (`float0`,
 * `__code0`, `eval0`, `eval1`, `batchify0`), colon-free like Trace's `py_name`.
 */
import { pythonFloatRepr } from "../../codec/python-json.js";
import type { JsonValue } from "../../domain/json-value.js";
import type { ParameterSpec } from "../../domain/parameter.js";
import type { ProblemGraph, ProblemGraphNode, ProblemInstance, ProblemNode, ProblemVariable } from "../problem.js";
import { Node } from "./node.js";
import { BATCHIFY_OP } from "./operation.js";

/** A node's value as Trace prints it (Python `str()`): floats as `3.0`, None/True/False, JSON for containers. */
export function renderNodeValue(node: Node): string {
  const value = node.value;
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return node.type === "int" ? String(value) : pythonFloatRepr(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** The batch's output node: `batchify(args_0=<output 0>, args_1=…)`. */
export function batchifyNode(outputs: readonly Node[]): Node<string> {
  const text = outputs.map((node, i) => `ID [${i}]: ${renderNodeValue(node)}\n`).join("");
  return new Node(text, BATCHIFY_OP.name, { op: { ...BATCHIFY_OP, inputs: outputs.map((node, i) => [`args_${i}`, node] as const) } });
}

/**
 * The problem for one batch: `outputs` are the rollouts' output (or exception) nodes, `feedback`
 * the batched feedback, `parameters` the task's parameters in the model's order (a parameter the
 * task marks fixed is an input, whatever the model declared).
 */
export function summarizeTrace(outputs: readonly Node[], feedback: string, parameters: readonly ParameterSpec[]): ProblemInstance {
  const output = batchifyNode(outputs);
  const trainableSpecs = new Set(parameters.filter((p) => p.trainable).map((p) => p.name));
  const trainable = (node: Node) => node.parameter !== undefined && trainableSpecs.has(node.parameter.spec);
  const parameterOrder = parameters.map((p) => p.name);
  const graph = propagatedGraph(output, trainable);
  const inGraph = new Set(graph);
  const names = graphNames(graph);
  const name = (node: Node) => names.get(node)!;
  const maxLevel = Math.max(...graph.map((n) => n.level));

  const code: string[] = [];
  const documentation: Record<string, string> = {};
  const variables: ProblemVariable[] = [];
  const inputs: ProblemNode[] = [];
  const others: ProblemNode[] = [];
  const outputsShown: ProblemNode[] = [];
  const shown = (node: Node): ProblemNode => ({ name: name(node), type: node.type, value: renderNodeValue(node) });
  const isRoot = (node: Node) => node.isRoot || !node.parents.every((p) => inGraph.has(canonical(p, graph)));

  for (const node of graph) {
    if (isRoot(node)) {
      if (trainable(node) && node.parameter) {
        variables.push({
          name: name(node),
          parameter: node.parameter.spec,
          kind: node.parameter.kind,
          type: node.type,
          value: node.value as JsonValue,
          description: node.description,
        });
      } else {
        inputs.push(shown(node));
      }
      continue;
    }
    const op = node.op!;
    code.push(`${name(node)} = ${op.name}(${op.inputs.map(([argument, input]) => `${argument}=${name(canonical(input, graph))}`).join(", ")})`);
    documentation[op.name] = op.documentation;
    (node.level === maxLevel ? outputsShown : others).push(shown(node));
  }

  const index = new Map(graph.map((node, i) => [node, i]));
  const variableNames = new Map(variables.map((v) => [v.parameter!, v.name]));
  const nodes: ProblemGraphNode[] = graph.map((node) => {
    const variable = trainable(node) && isRoot(node) ? { variable: name(node) } : {};
    return {
      name: name(node),
      type: node.type,
      value: renderNodeValue(node),
      description: node.description,
      kind: node.kind,
      ...(node.op && !isRoot(node) ? { op: node.op.name } : {}),
      parents: isRoot(node) ? [] : node.parents.map((p) => index.get(canonical(p, graph))!),
      ...variable,
    };
  });
  const problemGraph: ProblemGraph = {
    nodes,
    output: index.get(output)!,
    parameterOrder: parameterOrder.filter((p) => variableNames.has(p)).map((p) => variableNames.get(p)!),
  };
  return { graph: problemGraph, code: code.join("\n"), documentation, variables, inputs, others, outputs: outputsShown, feedback };
}

/** The node of the graph that stands for `node` (the same key: one parameter, one model object). */
function canonical(node: Node, graph: readonly Node[]): Node {
  if (node.key === undefined) return node;
  return graph.find((n) => n.key === node.key) ?? node;
}

/** The nodes feedback reaches from `output` (see the file comment), sorted by level, stable. */
function propagatedGraph(output: Node, trainable: (node: Node) => boolean): Node[] {
  const dependsOnTrainable = memoized((node: Node, self: (n: Node) => boolean): boolean => trainable(node) || node.parents.some(self));
  const graph: Node[] = [output];
  const byKey = new Map<string, Node>();
  const canon = (node: Node): Node => {
    if (node.key === undefined) return node;
    const seen = byKey.get(node.key);
    if (seen) return seen;
    byKey.set(node.key, node);
    return node;
  };
  const inGraph = new Set<Node>(graph);
  const queued = new Set<Node>([output]);
  const queue: Node[] = [output];
  while (queue.length > 0) {
    // Highest level first: every child of a node has propagated before it does.
    let at = 0;
    for (let i = 1; i < queue.length; i++) if (queue[i]!.level > queue[at]!.level) at = i;
    const node = queue.splice(at, 1)[0]!;
    for (const raw of node.parents) {
      const parent = canon(raw);
      if (!inGraph.has(parent)) {
        inGraph.add(parent);
        graph.push(parent);
      }
      if (parent.isRoot || queued.has(parent) || !dependsOnTrainable(parent)) continue;
      queued.add(parent);
      queue.push(parent);
    }
  }
  return graph.map((node, i) => ({ node, i })).sort((a, b) => a.node.level - b.node.level || a.i - b.i).map((e) => e.node);
}

/**
 * Trace's `name` of a parameter node we show as `name` (Trace's `py_name`): the counter after a
 * colon, `float0` → `float:0`. A parameter's base name (its type's name or `__code`) never ends in
 * a digit, so the counter is the trailing digits.
 */
export function traceNodeName(name: string): string {
  return name.replace(/(\d+)$/, ":$1");
}

function graphNames(graph: readonly Node[]): Map<Node, string> {
  const counts = new Map<string, number>();
  const names = new Map<Node, string>();
  for (const node of graph) {
    const k = counts.get(node.baseName) ?? 0;
    counts.set(node.baseName, k + 1);
    names.set(node, `${node.baseName}${k}`);
  }
  return names;
}

function memoized<A, R>(fn: (a: A, self: (a: A) => R) => R): (a: A) => R {
  const cache = new Map<A, R>();
  const self = (a: A): R => {
    if (!cache.has(a)) cache.set(a, fn(a, self));
    return cache.get(a)!;
  };
  return self;
}
