/**
 * TextGrad (algorithms reference §2.5): textual gradient descent over the problem's traced graph
 * (parity scenario textgrad).
 *
 * Call accounting, per `propose`:
 *   1. backward: the nodes in reverse level order (the output first), roots skipped. A node's
 *      gradient is the user's feedback on the output, else what its children sent it; where
 *      several gradients meet on one node, 1 "reduce" call summarizes them first. Then 1 call per
 *      edge node → parent, for every parent (fixed inputs included), each parent collecting one
 *      gradient with the conversation it came over;
 *   2. update: 1 call per variable, in the model's parameter order, with every gradient it
 *      collected (answer between <IMPROVED_VARIABLE> tags).
 *   Total: edges + reduces + variables (§3.14); on numeric_param with one example, 4 + 0 + 2.
 * A problem without a graph (an untraced agent) is read as the graph `output ← variables`.
 *
 * Errors: an update reply that cannot be read or coerced leaves that parameter out of the update
 * with a note (TextGrad prints and skips); nothing here throws for a bad reply. A failing LLM call
 * (network, abort) propagates, as in every other optimizer. Not replicated (docs/differences.md):
 * the reference's update prompts carry a response object's repr where the gradient belongs (here
 * the gradient text), its `.choices` indexing on an already-extracted string (§7 quirk 11) and
 * its json_object request for replies that are tagged text. As in the reference, the objective
 * kwarg appears in no prompt.
 */
import type { Kwargs } from "../../config/kwargs.js";
import type { ChatRequest, Llm } from "../../llm/llm.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { JsonValue } from "../../domain/json-value.js";
import { parameterOf, renderValue, type ProblemGraph, type ProblemGraphNode, type ProblemInstance } from "../problem.js";
import { coerceValue } from "./coerce-value.js";
import { parseXmlReply } from "./suggestion-parser.js";
import {
  edgeConversation,
  edgeGradientPrompt,
  GRADIENT_SYSTEM_PROMPT,
  IMPROVED_CLOSE,
  IMPROVED_OPEN,
  nodeRole,
  outputValue,
  REDUCE_SYSTEM_PROMPT,
  reduceUserPrompt,
  UPDATE_SYSTEM_PROMPT,
  updateUserPrompt,
  type GradientWithContext,
} from "./textgrad-prompts.js";

export const TEXTGRAD_DEFAULT_MAX_TOKENS = 4096;

export interface TextGradOptions {
  readonly maxTokens?: number;
}

/** TextGrad's kwargs (max_tokens); others, the objective included, are ignored as by the reference. */
export function textGradOptions(kwargs: Kwargs): TextGradOptions {
  return typeof kwargs.max_tokens === "number" && kwargs.max_tokens > 0 ? { maxTokens: kwargs.max_tokens } : {};
}

export type ImprovedValue = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly problem: string };

/**
 * The new value in an update reply, tolerantly: the text between <IMPROVED_VARIABLE> tags (an
 * unclosed tag runs to the end, as OpenTrace's split does); else an OptoPrimeV2-style
 * `<variable>` block naming this variable (a model answering in another optimizer's format);
 * a bare reply without either is skipped, as the reference skips it (parity scenario textgrad).
 */
export function parseImprovedVariable(reply: string, name: string): ImprovedValue {
  const open = reply.indexOf(IMPROVED_OPEN);
  if (open >= 0) {
    const rest = reply.slice(open + IMPROVED_OPEN.length);
    const close = rest.indexOf(IMPROVED_CLOSE);
    const inner = (close >= 0 ? rest.slice(0, close) : rest).trim();
    return inner === "" ? { ok: false, problem: `empty ${IMPROVED_OPEN} block` } : { ok: true, value: inner };
  }
  if (/<reasoning>|<variable>/.test(reply)) {
    const proposed = parseXmlReply(reply).suggestion[name];
    return typeof proposed === "string" && proposed !== "" ? { ok: true, value: proposed } : { ok: false, problem: `no ${IMPROVED_OPEN} block and no value for '${name}'` };
  }
  return { ok: false, problem: reply.trim() === "" ? "empty reply" : `no ${IMPROVED_OPEN} block` };
}

export class TextGradOptimizer implements Optimizer {
  readonly name = "TextGrad";

  constructor(
    private readonly llm: Llm,
    private readonly options: TextGradOptions = {},
  ) {}

  get maxTokens(): number {
    return this.options.maxTokens ?? TEXTGRAD_DEFAULT_MAX_TOKENS;
  }

  /** TextGrad keeps no memory between steps: a fork is a fresh optimizer with the same settings. */
  fork(): TextGradOptimizer {
    return new TextGradOptimizer(this.llm, { ...this.options });
  }

  async propose(problem: ProblemInstance, signal: AbortSignal): Promise<Proposal> {
    const variables = problem.variables;
    if (variables.length === 0) return { update: {}, reply: "", reasoning: "", terminated: false, notes: ["no trainable parameters; nothing to optimize"] };
    const graph = problem.graph ?? untracedGraph(problem);
    const levels = nodeLevels(graph);

    // 1. Backward, output first: reduce where gradients meet, then one call per edge.
    const received = graph.nodes.map((): GradientWithContext[] => []);
    const reasoning: string[] = [];
    const order = graph.nodes.map((_, i) => i).sort((a, b) => levels[b]! - levels[a]! || a - b);
    for (const index of order) {
      const node = graph.nodes[index]!;
      if (node.parents.length === 0) continue;
      const incoming = index === graph.output ? [problem.feedback.trimEnd()] : received[index]!.map((g) => g.gradient);
      if (incoming.length === 0) continue;
      const gradient = incoming.length > 1 ? await this.call(REDUCE_SYSTEM_PROMPT, reduceUserPrompt(incoming), signal) : incoming[0]!;
      if (incoming.length > 1) reasoning.push(`[reduced feedback on ${node.name}]\n${gradient}`);
      for (const parentIndex of node.parents) {
        const parent = graph.nodes[parentIndex]!;
        const edge = { input: parent, output: node, documentation: node.op ? problem.documentation[node.op] : undefined };
        const answer = await this.call(GRADIENT_SYSTEM_PROMPT, edgeGradientPrompt(edge, gradient), signal);
        received[parentIndex]!.push({ gradient: answer, context: { conversation: edgeConversation(edge), outputRole: nodeRole(node, edge.documentation), role: nodeRole(parent) } });
        if (parent.variable !== undefined) reasoning.push(`[gradient for ${parent.name} from ${node.name}]\n${answer}`);
      }
    }

    // 2. Update: one call per variable, in the model's parameter order; unreadable answers are skipped with a note.
    const update: Record<string, JsonValue> = {};
    const notes: string[] = [];
    const replies: string[] = [];
    const byName = new Map(variables.map((v) => [v.name, v]));
    for (const name of graph.parameterOrder) {
      const variable = byName.get(name);
      const index = graph.nodes.findIndex((n) => n.variable === name);
      if (variable === undefined || index < 0) continue;
      const reply = await this.call(UPDATE_SYSTEM_PROMPT, updateUserPrompt(variable, received[index]!), signal);
      replies.push(`[${variable.name}]\n${reply}`);
      const parsed = parseImprovedVariable(reply, variable.name);
      if (!parsed.ok) {
        notes.push(`${variable.name}: ${parsed.problem}; left unchanged`);
        continue;
      }
      const coerced = coerceValue(variable.kind, parsed.value);
      if (coerced.ok) update[parameterOf(variable)] = coerced.value;
      else notes.push(`${variable.name}: ${coerced.problem}; left unchanged`);
    }
    return { update, reply: replies.join("\n\n"), reasoning: reasoning.join("\n\n"), terminated: false, notes };
  }

  private async call(system: string, user: string, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    const request: ChatRequest = {
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      maxTokens: this.maxTokens,
    };
    return (await this.llm.complete(request, signal)).content;
  }
}

/** An untraced agent's problem as a graph: its variables feed the batched output directly. */
function untracedGraph(problem: ProblemInstance): ProblemGraph {
  const variables: ProblemGraphNode[] = problem.variables.map((v) => ({
    name: v.name,
    type: v.type,
    value: renderValue(v.value, v.kind),
    description: v.description,
    kind: "parameter",
    parents: [],
    variable: v.name,
  }));
  const output: ProblemGraphNode = { name: "output", type: "str", value: outputValue(problem), description: problem.code, kind: "message", parents: variables.map((_, i) => i) };
  return { nodes: [...variables, output], output: variables.length, parameterOrder: problem.variables.map((v) => v.name) };
}

/** Each node's level (nodes come roots first, each after its parents). */
function nodeLevels(graph: ProblemGraph): number[] {
  const levels: number[] = [];
  graph.nodes.forEach((node, i) => {
    levels[i] = node.parents.length === 0 ? 0 : Math.max(...node.parents.map((p) => levels[p] ?? 0)) + 1;
  });
  return levels;
}
