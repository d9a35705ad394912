/**
 * Rollouts: the agent run on examples under given parameter values, each scored by the guide.
 * An agent that throws yields the trainer's minimum score and the error as feedback, as Trace's
 * ExecutionError does; nothing is thrown to the trainer.
 */
import type { Agent } from "../domain/agent.js";
import type { Dataset } from "../domain/dataset.js";
import type { Guide } from "../domain/guide.js";
import type { TaskCallContext } from "../domain/task-call-context.js";
import type { TaskLlm } from "../domain/task-llm.js";
import { mapBounded } from "./bounded.js";
import type { ParameterValues } from "../domain/parameter.js";
import { isTracedAgent } from "./trace/model.js";
import type { Node } from "./trace/node.js";
import { errorMessage, ExecutionError } from "./trace/operation.js";

export interface Example {
  readonly input: unknown;
  readonly info: unknown;
}

export interface Rollout extends Example {
  readonly response: unknown;
  readonly score: number | null;
  readonly feedback: string;
  readonly scores?: Readonly<Record<string, number>>;
  /** Set when the agent or guide threw. */
  readonly error?: string;
  /** The output node (or exception node) of a traced agent's forward pass. */
  readonly trace?: Node;
}

export function examplesOf(dataset: Dataset): Example[] {
  const n = Math.min(dataset.inputs.length, dataset.infos.length);
  return Array.from({ length: n }, (_, i) => ({ input: dataset.inputs[i], info: dataset.infos[i] }));
}

export interface RolloutOptions {
  readonly signal: AbortSignal;
  /** Score given to an example whose agent or guide threw (null = "invalid"). */
  readonly minScore?: number | null;
  /** Called once per agent+guide evaluation (for the trainer's evaluation counter). */
  readonly onEvaluation?: () => void;
  /** How many examples run at once (`num_threads`; default 1). */
  readonly concurrency?: number;
  /** Where the task's own output goes (the job's log). */
  readonly log?: (text: string) => void;
  /** The LLM the agent and guide of one example call (the job's audited path). */
  readonly llm?: TaskLlm;
  /** `rolloutMany`: each example's LLM, by its index in the batch (its calls' place in the job). */
  readonly llmFor?: (example: number) => TaskLlm;
}

const callContext = (options: RolloutOptions): TaskCallContext => ({ signal: options.signal, ...(options.log ? { log: options.log } : {}), ...(options.llm ? { llm: options.llm } : {}) });

export async function rolloutOne(agent: Agent, guide: Guide, values: ParameterValues, example: Example, options: RolloutOptions): Promise<Rollout> {
  options.signal.throwIfAborted();
  options.onEvaluation?.();
  let response: unknown;
  let trace: { trace?: Node } = {};
  try {
    if (isTracedAgent(agent)) {
      const output = await agent.forward(example.input, values, callContext(options));
      trace = { trace: output };
      response = output.value;
    } else {
      response = await agent.run(example.input, values, callContext(options));
    }
  } catch (error) {
    options.signal.throwIfAborted();
    const message = errorMessage(error);
    // A traced op that failed leaves its exception node as the output, as Trace's standard forward does.
    const crashed = error instanceof ExecutionError ? { trace: error.exceptionNode } : {};
    return { ...example, response: message, score: options.minScore ?? null, feedback: message, error: message, ...crashed };
  }
  try {
    const result = await guide.evaluate(example.input, response, example.info, callContext(options));
    return { ...example, response, score: result.score, feedback: result.feedback, ...(result.scores ? { scores: result.scores } : {}), ...trace };
  } catch (error) {
    options.signal.throwIfAborted();
    const message = error instanceof Error ? error.message : String(error);
    return { ...example, response, score: options.minScore ?? null, feedback: `guide error: ${message}`, error: message, ...trace };
  }
}

/** Rollouts of several examples, in order (results never depend on completion order). */
export async function rolloutMany(agent: Agent, guide: Guide, values: ParameterValues, examples: readonly Example[], options: RolloutOptions): Promise<Rollout[]> {
  const { llmFor } = options;
  return mapBounded(examples, (example, i) => rolloutOne(agent, guide, values, example, llmFor === undefined ? options : { ...options, llm: llmFor(i) }), options.concurrency ?? 1, options.signal);
}

/** Mean score; null when there is nothing to average or any score is null (Trace's "invalid"). */
export function meanScore(rollouts: readonly Rollout[]): number | null {
  if (rollouts.length === 0 || rollouts.some((r) => r.score === null)) return null;
  return rollouts.reduce((sum, r) => sum + (r.score as number), 0) / rollouts.length;
}

/** Mean over the rollouts that have a score (Trace's `safe_mean`); null when none has. */
export function safeMeanScore(rollouts: readonly Rollout[]): number | null {
  const scored = rollouts.filter((r) => r.score !== null);
  return scored.length === 0 ? null : scored.reduce((sum, r) => sum + (r.score as number), 0) / scored.length;
}
