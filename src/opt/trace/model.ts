/**
 * A Trace model (algorithms reference §1.3) written in TypeScript: parameters, traced operations
 * (some trainable: their source is a `code` parameter) and a forward pass that calls them. Each
 * forward builds a fresh graph from the job's current parameter values (plain data, as the engine
 * records them) and returns the output node; `run` is the same pass for callers that want only
 * the value.
 *
 * Parameter order is the model's attribute order as Trace's `parameters()` walks it: by attribute
 * name, an op's code parameter under the op's name (so `emit` comes before `value`). Optimizers
 * that update parameters one by one (TextGrad) follow it.
 */
import type { Agent } from "../../domain/agent.js";
import type { JsonValue } from "../../domain/json-value.js";
import type { ParameterKind, ParameterSpec, ParameterValues } from "../../domain/parameter.js";
import type { TaskCallContext } from "../../domain/task-call-context.js";
import { Node, parameterBaseName } from "./node.js";
import { callOp, EVAL_OP, ExecutionError, type OpDefinition, type OpFunction, type OpInputs } from "./operation.js";

export interface ModelParameter {
  /** The attribute name, under which the job records the value. */
  readonly name: string;
  readonly kind: ParameterKind;
  readonly value: JsonValue;
  readonly description: string;
  readonly trainable?: boolean;
}

/** Runs a trainable op's current source on its arguments (the candidate-code sandbox). */
export type CodeRunner = (source: string, args: readonly unknown[], context: TaskCallContext) => Promise<unknown>;

export interface TrainableOp {
  /** The op's name (the function name its source defines). */
  readonly name: string;
  /** The initial source: a function whose parameters are the op's arguments, in order. */
  readonly source: string;
  readonly run: CodeRunner;
}

/** What a forward pass works with: the parameter nodes, the model's own node, and its ops. */
export interface ModelScope {
  /** The model object itself (a method's `self` input). */
  readonly self: Node;
  readonly context: TaskCallContext;
  param(name: string): Node;
  /** Calls a trainable op: its inputs are `self`, the arguments, then its code parameter as `__code`. */
  call(op: string, args: OpInputs): Promise<Node>;
  /** Calls a fixed traced op. */
  op(definition: OpDefinition, args: OpInputs, fn: OpFunction): Promise<Node>;
}

export interface TraceModelDefinition {
  /** The model's class name (its node is shown under this type). */
  readonly name: string;
  readonly parameters?: readonly ModelParameter[];
  readonly trainableOps?: readonly TrainableOp[];
  forward(scope: ModelScope, input: unknown): Promise<Node>;
}

/**
 * An agent written as a Trace model: a forward pass records the graph its output was computed by,
 * which optimizers read their problem from. It throws `ExecutionError` (carrying the exception
 * node) when an op fails.
 */
export interface TracedAgent extends Agent {
  forward(input: unknown, values: ParameterValues, context: TaskCallContext): Promise<Node>;
}

export interface TraceModel {
  readonly parameters: readonly ParameterSpec[];
  readonly agent: TracedAgent;
}

/** The name a trainable op's code parameter is recorded under. */
export const codeParameterName = (op: string) => `__code_${op}`;

/** Trace's constraint on a code parameter: the definition line it must keep. */
export function codeDescription(source: string): string {
  return `The code should start with:\n${source.split("\n")[0]!.trimEnd()}`;
}

export function defineTraceModel(definition: TraceModelDefinition): TraceModel {
  const ops = new Map((definition.trainableOps ?? []).map((op) => [op.name, op]));
  const attributes: { readonly attribute: string; readonly spec: ParameterSpec }[] = [
    ...(definition.parameters ?? []).map((p) => ({
      attribute: p.name,
      spec: { name: p.name, kind: p.kind, value: p.value, description: p.description, trainable: p.trainable ?? true },
    })),
    ...[...ops.values()].map((op) => ({
      attribute: op.name,
      spec: { name: codeParameterName(op.name), kind: "code" as const, value: op.source, description: codeDescription(op.source), trainable: true },
    })),
  ];
  const parameters = attributes.sort((a, b) => (a.attribute < b.attribute ? -1 : a.attribute > b.attribute ? 1 : 0)).map((a) => a.spec);

  const forward = async (input: unknown, values: ParameterValues, context: TaskCallContext): Promise<Node> => {
    const nodes = new Map(
      parameters.map((spec) => {
        const value = values[spec.name] ?? spec.value;
        return [spec.name, new Node(value, parameterBaseName(spec.kind, value), { description: spec.description, parameter: { spec: spec.name, kind: spec.kind, trainable: spec.trainable } })];
      }),
    );
    const self = new Node(`<${definition.name} object>`, definition.name, { type: definition.name, key: `model:${definition.name}` });
    const param = (name: string): Node => {
      const node = nodes.get(name);
      if (node === undefined) throw new Error(`model ${definition.name} has no parameter '${name}'`);
      return node;
    };
    const scope: ModelScope = {
      self,
      context,
      param,
      op: (op, args, fn) => callOp(op, args, fn),
      call(name, args) {
        const op = ops.get(name);
        if (op === undefined) throw new Error(`model ${definition.name} has no trainable op '${name}'`);
        const code = param(codeParameterName(name));
        return callOp(EVAL_OP, { self, ...args, __code: code }, (unwrapped) =>
          op.run(String(unwrapped.__code), Object.keys(args).map((argument) => unwrapped[argument]), context),
        );
      },
    };
    return definition.forward(scope, input);
  };

  const agent: TracedAgent = {
    name: definition.name,
    forward,
    async run(input, values, context) {
      try {
        return (await forward(input, values, context)).value;
      } catch (error) {
        // Callers of `run` (the harness's scoring) want the error, not a graph.
        if (error instanceof ExecutionError) throw new Error(error.message);
        throw error;
      }
    },
  };
  return { parameters, agent };
}

export function isTracedAgent(agent: Agent): agent is TracedAgent {
  return typeof (agent as Partial<TracedAgent>).forward === "function";
}
