/**
 * Trace graph nodes (algorithms reference §1.1): a value with the nodes it was computed from.
 * A forward pass builds them; an optimizer reads its problem from them (summary.ts).
 *
 * Names: a node has only a base name here (the type name of a value, the op that produced it, the
 * argument it was passed as); the LLM-visible `name0`, `name1`… are assigned per problem, in
 * graph order, so prompts never depend on how many nodes a process made before.
 */
import type { JsonValue } from "../../domain/json-value.js";
import type { ParameterKind } from "../../domain/parameter.js";

export type NodeKind = "node" | "parameter" | "message" | "exception";

/** A trainable (or fixed) parameter of a model, by the name its values are recorded under. */
export interface ParameterBinding {
  readonly spec: string;
  readonly kind: ParameterKind;
  readonly trainable: boolean;
}

/** The operation that produced a message node: its name, documentation and named inputs. */
export interface OpRecord {
  readonly name: string;
  readonly documentation: string;
  readonly inputs: readonly (readonly [string, Node])[];
}

export interface NodeOptions {
  readonly kind?: NodeKind;
  readonly description?: string;
  readonly parameter?: ParameterBinding;
  readonly op?: OpRecord;
  /** The Python type name shown for the value (default: from the value). */
  readonly type?: string;
  /**
   * Nodes of one problem with the same key are one node: a model's parameters and its own node
   * are created by each forward pass, but a batch runs one model, as in Trace.
   */
  readonly key?: string;
}

export class Node<T = unknown> {
  readonly kind: NodeKind;
  /** What the value is for (a parameter's description is a constraint shown to the optimizer). */
  readonly description: string;
  readonly parameter: ParameterBinding | undefined;
  readonly op: OpRecord | undefined;
  /** Distinct inputs of the op, by identity, in argument order. */
  readonly parents: readonly Node[];
  /** 0 for roots, else one more than the highest parent. */
  readonly level: number;
  readonly type: string;
  readonly key: string | undefined;

  constructor(
    readonly value: T,
    readonly baseName: string,
    options: NodeOptions = {},
  ) {
    this.kind = options.kind ?? (options.op ? "message" : options.parameter ? "parameter" : "node");
    this.description = options.description ?? "";
    this.parameter = options.parameter;
    this.op = options.op;
    const parents: Node[] = [];
    for (const [, input] of options.op?.inputs ?? []) if (!parents.includes(input)) parents.push(input);
    this.parents = parents;
    this.level = parents.length === 0 ? 0 : Math.max(...parents.map((p) => p.level)) + 1;
    this.type = options.type ?? pythonTypeName(value, options.parameter?.kind);
    this.key = options.key ?? (options.parameter ? `parameter:${options.parameter.spec}` : undefined);
  }

  get isRoot(): boolean {
    return this.parents.length === 0;
  }

  get trainable(): boolean {
    return this.parameter?.trainable === true;
  }
}

/** The Python type name of a value as Trace shows it (numbers are floats unless declared integers). */
export function pythonTypeName(value: unknown, kind?: ParameterKind): string {
  if (kind === "code") return "code";
  if (kind === "integer") return "int";
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Base names of parameter nodes, as Trace names a node after its value's type (`float0`, `__code0`). */
export function parameterBaseName(kind: ParameterKind, value: JsonValue): string {
  return kind === "code" ? "__code" : pythonTypeName(value, kind);
}
