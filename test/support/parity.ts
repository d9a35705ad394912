/**
 * Helpers for the parity tests (test/unit/opt/parity/): the agents and guide of the Python
 * scenarios recorded from the reference (their "Conventions": agents A1, A2 and PAIR, guide G),
 * built as task bundles, with a log of every agent call so a test can compare forward batches and
 * evaluation counts.
 */
import { readFileSync } from "node:fs";
import { negativeAbsoluteError } from "../../adapters/tasks/guides.js";
import type { ParameterSpec, ParameterValues } from "../../src/domain/parameter.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import type { ChatRequest } from "../../src/llm/llm.js";
import type { TracedAgent } from "../../src/opt/trace/model.js";
import type { TaskRegistry } from "../../src/tasks/task-registry.js";

/** A recorded fixture (test/fixtures/parity/<scenario>.json). */
export function parityFixture<T = any>(scenario: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/parity/${scenario}.json`, import.meta.url), "utf8")) as T;
}

export interface AgentCall {
  readonly input: unknown;
  readonly values: ParameterValues;
}

export interface ParityBundle extends TaskBundle {
  /** Every agent call, in order (crashed ones included). */
  readonly calls: AgentCall[];
}

function number(name: string): ParameterSpec {
  return { name, kind: "number", value: 0, description: `The ${name}.`, trainable: true };
}

interface Data {
  readonly inputs: readonly unknown[];
  readonly targets: readonly number[];
  readonly validate?: { readonly inputs: readonly unknown[]; readonly targets: readonly number[] };
}

function bundle(parameters: ParameterSpec[], respond: (input: unknown, values: ParameterValues) => unknown, data: Data): ParityBundle {
  const calls: AgentCall[] = [];
  return {
    taskId: "test:parity",
    parameters,
    agent: {
      name: "ParityAgent",
      run(input, values) {
        calls.push({ input, values: { ...values } });
        return respond(input, values);
      },
    },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: data.inputs, infos: data.targets },
    ...(data.validate ? { validate_dataset: { inputs: data.validate.inputs, infos: data.validate.targets } } : {}),
    optimizer_kwargs: {},
    metadata: {},
    calls,
  };
}

/**
 * Agent A1, "value agent": one float `value` (0.0); `emit(value, x)` returns `value`, or raises
 * where `crash(value, x)` says so.
 */
export function valueAgent(data: Data, crash: (value: number, x: unknown) => boolean = () => false): ParityBundle {
  return bundle(
    [number("value")],
    (x, values) => {
      const value = values.value as number;
      if (crash(value, x)) throw new Error("scripted crash");
      return value;
    },
    data,
  );
}

/**
 * Agent A2, "numeric_param agent": the task internal:numeric_param itself (a float `value`
 * returned by the trainable op `emit`, whose code is a second parameter) on the scenario's data,
 * with no optimizer kwargs of its own (the scenario names them), logging every forward pass.
 */
export async function numericParamAgent(registry: TaskRegistry, data: Data): Promise<ParityBundle> {
  const task = await registry.load("internal:numeric_param", {});
  const traced = task.agent as TracedAgent;
  const calls: AgentCall[] = [];
  const agent: TracedAgent = {
    ...traced,
    forward(input, values, context) {
      calls.push({ input, values: { ...values } });
      return traced.forward(input, values, context);
    },
  };
  return {
    ...task,
    agent,
    train_dataset: { inputs: data.inputs, infos: data.targets },
    ...(data.validate ? { validate_dataset: { inputs: data.validate.inputs, infos: data.validate.targets } } : {}),
    optimizer_kwargs: {},
    calls,
  };
}

/** PAIR: two floats `a`, `b` (0.0); the output is `a` for input 0 and `b` for input 1. */
export function pairAgent(data: Data): ParityBundle {
  return bundle([number("a"), number("b")], (x, values) => (x === 0 ? values.a : values.b), data);
}

/** The inputs of the agent calls from `from` on, in groups of `size`. */
export function inputsIn(calls: readonly AgentCall[], from: number, to = calls.length): unknown[] {
  return calls.slice(from, to).map((c) => c.input);
}

/**
 * The memory rounds an OptoPrimeV2/OPROv2 prompt carries, oldest first, each as the values of
 * its variables (as text), read from the user message.
 */
export function memoryRoundValues(request: ChatRequest): string[][] {
  const user = request.messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
  const rounds = [...user.matchAll(/<round (\d+)>\n([\s\S]*?)<\/round \1>/g)];
  return rounds.map((round) => [...round[2]!.matchAll(/<value>\n([\s\S]*?)\n<\/value>/g)].map((v) => v[1]!));
}
