/**
 * Traced operations (Trace's `bundle`, algorithms reference §1.2): calling one records a message
 * node whose parents are its inputs, named after the op and documented by it. Arguments that are
 * not nodes are wrapped as nodes named after the argument. An op that throws records an exception
 * node (`exception_<op>`) with the same inputs and raises `ExecutionError` carrying it, so a
 * crashed rollout still has a graph for the optimizer to read.
 *
 * A trainable op's source is a `code` parameter: the op runs whatever source that parameter holds
 * (through `runCode`, the candidate-code sandbox), and the output is an `eval` node whose inputs
 * include the code parameter as `__code`.
 */
import { Node } from "./node.js";

export class ExecutionError extends Error {
  override readonly name = "ExecutionError";
  constructor(readonly exceptionNode: Node<string>) {
    super(exceptionNode.value);
  }
}

export type OpInputs = Readonly<Record<string, unknown>>;

const asNode = (argument: string, value: unknown): Node => (value instanceof Node ? value : new Node(value, argument));

/** The op's value: unwrapped inputs in, a plain value (or a promise of one) out. */
export type OpFunction = (values: Readonly<Record<string, unknown>>) => unknown;

export interface OpDefinition {
  readonly name: string;
  /** One line on what the op does; the optimizer sees it under #Documentation. */
  readonly documentation: string;
}

/** Why an op failed, as Trace writes an ExecutionError's message: `(ErrorType) detail`. */
export function errorMessage(error: unknown): string {
  if (error instanceof ExecutionError) return error.message;
  if (error instanceof Error) return `(${error.name}) ${error.message}`;
  return String(error);
}

/** Calls `fn` as the traced op `definition` on `inputs` (named, in argument order). */
export async function callOp(definition: OpDefinition, inputs: OpInputs, fn: OpFunction): Promise<Node> {
  const named = Object.entries(inputs).map(([argument, value]) => [argument, asNode(argument, value)] as const);
  const op = { name: definition.name, documentation: definition.documentation, inputs: named };
  let result: unknown;
  try {
    result = await fn(Object.fromEntries(named.map(([argument, node]) => [argument, node.value])));
  } catch (error) {
    if (error instanceof ExecutionError) throw error;
    throw new ExecutionError(new Node(errorMessage(error), `exception_${definition.name}`, { kind: "exception", op, type: "str" }) as Node<string>);
  }
  return new Node(result, definition.name, { op });
}

/** What a trainable op's output node is called and how its documentation reads, whatever its name. */
export const EVAL_OP: OpDefinition = {
  name: "eval",
  documentation:
    "Runs the function whose source is __code on the other inputs and returns its result; the source is a trainable variable, so changing it changes what this operation computes.",
};

/** Trace's `batchify`: one `ID [i]: <item>` line per example, as a traced op over the batch's outputs. */
export const BATCHIFY_OP: OpDefinition = {
  name: "batchify",
  documentation: "Joins the items of a batch into one text, one line 'ID [i]: <item>' per item.",
};
