/**
 * Driving the PrioritySearch family on the parity scenarios' agent A1 (one trainable float
 * `value`, initial 0.0; output = value; guide G = −|output − target|) with the recorded scripted
 * replies, and reading back the facts the recordings hold.
 */
import { readFileSync } from "node:fs";
import { negativeAbsoluteError } from "../../../../adapters/tasks/guides.js";
import type { Kwargs } from "../../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../../src/domain/task-bundle.js";
import type { ChatRequest } from "../../../../src/llm/llm.js";
import type { PrioritySearchOptions } from "../../../../src/opt/trainers/priority-search-options.js";
import { runPrioritySearch, type IterationSnapshot } from "../../../../src/opt/trainers/priority-search.js";
import { scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { shownValues } from "../../../support/shown-values.js";
import { harnessContext } from "../../../support/trainer-harness.js";

export function fixture<T = Record<string, unknown>>(id: string): T {
  return JSON.parse(readFileSync(new URL(`../../../fixtures/parity/${id}.json`, import.meta.url), "utf8")) as T;
}

export interface RecordedCall {
  readonly memory_rounds: number;
  readonly shown: number[];
  readonly returned: Record<string, number>;
  readonly became_candidate: string | null;
}

export interface RecordedIteration {
  readonly iteration: number;
  readonly best: { label: string; values: { value: number }; mean_score: number | string | null; num_rollouts: number };
  readonly exploration: string[];
}

export interface RecordedRun {
  readonly train_kwargs: Kwargs;
  readonly calls: RecordedCall[];
  readonly iterations: RecordedIteration[];
  readonly evaluations: { guide_calls_total: number; by_iteration_and_phase: Record<string, number> };
  readonly agent_forward?: { by_iteration_and_phase: Record<string, number> };
  readonly tests: { iteration: number; score: number }[];
  readonly final: { values: { value: number }; score_on_train?: (number | null)[] };
}

/** A JSON number or one of the strings "-inf", "inf", "nan". */
export function pyNumber(x: number | string | null): number | null {
  if (typeof x !== "string") return x;
  return x === "-inf" ? -Infinity : x === "inf" ? Infinity : Number.NaN;
}

/** Agent A1 on inputs xs with targets; `crashes(value, x)` makes emit raise. */
export function a1(inputs: readonly number[], targets: readonly number[], options: { crashes?: (value: number, x: number) => boolean; validate?: { inputs: number[]; targets: number[] }; seen?: { value: number; x: number }[] } = {}): TaskBundle {
  return {
    taskId: "parity:A1",
    parameters: [{ name: "value", kind: "number", value: 0, description: "The value.", trainable: true }],
    agent: {
      name: "A1",
      run: (input, values) => {
        const value = values.value as number;
        options.seen?.push({ value, x: input as number });
        if (options.crashes?.(value, input as number)) throw new Error(`emit raised for value ${value}, x ${String(input)}`);
        return value;
      },
    },
    guide: negativeAbsoluteError,
    train_dataset: { inputs: [...inputs], infos: [...targets] },
    ...(options.validate ? { validate_dataset: { inputs: options.validate.inputs, infos: options.validate.targets } } : {}),
    optimizer_kwargs: {},
    metadata: {},
  };
}

export interface ParityRun {
  readonly values: Record<string, unknown>;
  readonly requests: ChatRequest[];
  readonly snapshots: IterationSnapshot[];
  /** IterationCompleted payloads. */
  readonly iterations: Record<string, unknown>[];
  /** Memory rounds each prompt carried. */
  readonly memoryRounds: number[];
  /** The value of `value` each prompt showed. */
  readonly shown: number[];
  readonly remaining: number;
}

/** Runs the engine with the recorded replies (xml `value` = what the optimizer returned). */
export async function runRecorded(bundle: TaskBundle, calls: readonly RecordedCall[], options: PrioritySearchOptions, optimizerKwargs: Kwargs = {}, seed = 1): Promise<ParityRun> {
  const llm = scriptedLlm(calls.map((c) => (Object.keys(c.returned).length > 0 ? xmlReply({ value: c.returned.value }) : "TERMINATE")));
  const snapshots: IterationSnapshot[] = [];
  const { context, events } = harnessContext(bundle, llm, { optimizer: "OptoPrimeV2", optimizerKwargs, seed });
  const result = await runPrioritySearch(context, options, (s) => snapshots.push(s));
  const user = (r: ChatRequest) => r.messages.find((m) => m.role === "user")!.content;
  return {
    values: result.values,
    requests: llm.requests,
    snapshots,
    iterations: events.filter((e) => e.type === "IterationCompleted").map((e) => e.data as Record<string, unknown>),
    memoryRounds: llm.requests.map((r) => (user(r).match(/<round \d+>/g) ?? []).length),
    shown: llm.requests.map((r) => shownValues(r).value as number),
    remaining: llm.remaining(),
  };
}

/** Candidate labels c0, c1… are creation order, as our candidate ids are. */
export const label = (id: number) => `c${id}`;

/**
 * The reference's guide calls (per "iterN:phase") that our trainers deliberately do not make
 * (docs/differences.md): its test phase (the agent scored on the test set, the train set by
 * default, for its logs only: the runner scores the job itself), and the sample made after the
 * last iteration (the reference evaluates the exploration candidates on the next batch at the end
 * of each iteration; we evaluate that batch in the iteration that uses it, so the last one never is).
 */
export function skippedEvaluations(byPhase: Record<string, number>): { test: number; unusedSample: number } {
  const iterationOf = (key: string) => Number(/^iter(\d+):/.exec(key)![1]);
  const last = Math.max(...Object.keys(byPhase).map(iterationOf));
  const sum = (keep: (key: string) => boolean) => Object.entries(byPhase).reduce((total, [key, n]) => total + (keep(key) ? n : 0), 0);
  return { test: sum((key) => key.endsWith(":test")), unusedSample: sum((key) => key.endsWith(":sample") && iterationOf(key) === last) };
}

/** The reference's evaluation counts (per "iterN:phase") less those our trainers deliberately skip. */
export function comparableEvaluations(byPhase: Record<string, number>): number {
  const total = Object.values(byPhase).reduce((sum, n) => sum + n, 0);
  const skipped = skippedEvaluations(byPhase);
  return total - skipped.test - skipped.unusedSample;
}
