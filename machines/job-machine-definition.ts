/**
 * The job machine as a plain machine config: JSON that XState's `createMachine` accepts and
 * Stately's editor imports. `machine.toJSON()` is not that (it holds resolved state nodes, whose
 * `initial` and `target` shapes `createMachine` cannot read back), so the config is rebuilt from
 * the machine's state nodes. Guards and actions are kept by name: the JSON is self-contained and
 * a machine built from it behaves like the job machine once given the same implementations.
 */
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { jobMachine } from "./job.machine.js";

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface TransitionDefinition {
  /** One target as a string (the form Stately's editor writes), several as an array. */
  target?: string | string[];
  guard?: string;
  actions?: string[];
  reenter?: true;
  description?: string;
}

export interface StateDefinition {
  id?: string;
  type?: "final" | "parallel" | "history";
  initial?: string;
  description?: string;
  tags?: string[];
  entry?: string[];
  exit?: string[];
  /** An event's one transition as an object, several (guarded, tried in order) as an array. */
  on?: Record<string, TransitionDefinition | TransitionDefinition[]>;
  always?: TransitionDefinition[];
  states?: Record<string, StateDefinition>;
}

export interface MachineDefinition extends StateDefinition {
  id: string;
  context?: JsonValue;
}

/** A machine feature this export cannot write as self-contained JSON. */
export class UnexportableMachine extends Error {
  override readonly name = "UnexportableMachine";
}

/** An action or guard by name; an inline function has no name the JSON could carry. */
function nameOf(what: "guard" | "action", item: unknown, where: string): string {
  if (typeof item === "string") return item;
  const type = (item as { type?: unknown } | null)?.type;
  if (typeof type === "string" && !("params" in (item as object))) return type;
  throw new UnexportableMachine(`${where}: an inline ${what} cannot be exported; give it a name in setup({ ${what}s })`);
}

/** A target as `createMachine` resolves it: a sibling by key, any other state by `#id`. */
function targetOf(source: AnyStateNode, target: AnyStateNode): string {
  return target.parent !== undefined && target.parent === source.parent ? target.key : `#${target.id}`;
}

function transitionOf(source: AnyStateNode, t: { target?: readonly AnyStateNode[] | undefined; guard?: unknown; actions: readonly unknown[]; reenter: boolean; description?: string | undefined }): TransitionDefinition {
  const out: TransitionDefinition = {};
  if (t.target !== undefined && t.target.length > 0) {
    const targets = t.target.map((s) => targetOf(source, s));
    out.target = targets.length === 1 ? targets[0]! : targets;
  }
  if (t.guard !== undefined) out.guard = nameOf("guard", t.guard, source.id);
  if (t.actions.length > 0) out.actions = t.actions.map((a) => nameOf("action", a, source.id));
  if (t.reenter) out.reenter = true;
  if (t.description !== undefined) out.description = t.description;
  return out;
}

function stateOf(node: AnyStateNode): StateDefinition {
  if (node.invoke.length > 0) throw new UnexportableMachine(`${node.id}: invoked actors are not exported`);
  const out: StateDefinition = {};
  // The default id is the path; an explicit one is kept so that `#id` targets still resolve.
  if (node.parent !== undefined && node.id !== `${node.parent.id}.${node.key}`) out.id = node.id;
  if (node.type === "final" || node.type === "parallel" || node.type === "history") out.type = node.type;
  const initial = node.type === "compound" ? node.initial.target[0] : undefined;
  if (initial !== undefined) out.initial = initial.key;
  if (node.description !== undefined) out.description = node.description;
  if (node.tags.length > 0) out.tags = [...node.tags];
  if (node.entry.length > 0) out.entry = node.entry.map((a: unknown) => nameOf("action", a, node.id));
  if (node.exit.length > 0) out.exit = node.exit.map((a: unknown) => nameOf("action", a, node.id));
  if (node.transitions.size > 0) {
    out.on = {};
    for (const [event, transitions] of node.transitions) {
      if (event.startsWith("xstate.after.")) throw new UnexportableMachine(`${node.id}: delayed transitions are not exported`);
      const exported = transitions.map((t) => transitionOf(node, t));
      out.on[event] = exported.length === 1 ? exported[0]! : exported;
    }
  }
  if (node.always !== undefined && node.always.length > 0) out.always = node.always.map((t) => transitionOf(node, t));
  const children = Object.entries(node.states as Record<string, AnyStateNode>);
  if (children.length > 0) out.states = Object.fromEntries(children.map(([key, child]) => [key, stateOf(child)]));
  return out;
}

/** `machine` as a `createMachine` config. Its context must be a plain JSON value (not a function). */
export function machineDefinition(machine: AnyStateMachine): MachineDefinition {
  const root = machine.root;
  const context = machine.config.context as unknown;
  if (typeof context === "function") throw new UnexportableMachine(`${root.id}: a context factory cannot be exported`);
  const state = stateOf(root);
  return {
    id: root.id,
    ...(state.initial !== undefined ? { initial: state.initial } : {}),
    ...(context !== undefined ? { context: JSON.parse(JSON.stringify(context)) as JsonValue } : {}),
    ...state,
  };
}

export const jobMachineDefinition = (): MachineDefinition => machineDefinition(jobMachine);
