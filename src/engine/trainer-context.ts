/**
 * Builds what a trainer works with for one job: its optimizers on the metered LLM, rollouts that
 * count evaluations, and `emit`, which turns a step into an IterationCompleted event with the
 * job's LLM-call and evaluation counts so far.
 */
import { toPlain, type Kwargs } from "../config/kwargs.js";
import type { Llm } from "../llm/llm.js";
import { meteredLlm } from "../llm/metered-llm.js";
import { createOptimizer } from "../opt/optimizers/optimizer-registry.js";
import type { ParameterValues } from "../domain/parameter.js";
import { buildProblem } from "../opt/problem.js";
import { createRng } from "../opt/rng.js";
import { rolloutMany } from "../opt/rollout.js";
import type { TrainerContext } from "../opt/trainer.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { JobFact } from "./job-decider.js";

export interface TrainerContextInput {
  readonly bundle: TaskBundle;
  readonly initialValues: ParameterValues;
  /** Resolved trainer kwargs (may hold PyFloats; the trainer gets plain values). */
  readonly trainerKwargs: Kwargs;
  readonly seed: number;
  readonly optimizer: { readonly name: string; readonly kwargs: unknown };
  /** Records facts of the running attempt (throws when the log cannot take them). */
  readonly recorder: { readonly attempt: number; readonly record: (facts: JobFact[]) => void };
  readonly llm: Llm;
  readonly signal: AbortSignal;
  /** Called with the values of every emitted step (the job keeps the latest for a timeout report). */
  readonly onValues: (values: ParameterValues) => void;
}

export function createTrainerContext(input: TrainerContextInput): TrainerContext {
  const { bundle, recorder, signal } = input;
  const counters = { llmCalls: 0, evaluations: 0 };
  let notes: string[] = [];
  const kwargs = toPlain(input.trainerKwargs);
  const concurrency = typeof kwargs.num_threads === "number" && kwargs.num_threads > 0 ? kwargs.num_threads : 1;
  const llm = meteredLlm(input.llm, "optimizer", (call) => {
    counters.llmCalls += 1;
    recorder.record([{ type: "LlmCallCompleted", data: { attempt: recorder.attempt, ...call } }]);
  });
  const optimizerKwargs = toPlain(input.optimizer.kwargs) as Kwargs | Kwargs[];
  return {
    parameters: bundle.parameters,
    initialValues: input.initialValues,
    agent: bundle.agent,
    guide: bundle.guide,
    train: bundle.train_dataset,
    ...(bundle.validate_dataset ? { validate: bundle.validate_dataset } : {}),
    kwargs,
    rng: createRng(input.seed),
    signal,
    emit(report) {
      input.onValues(report.values);
      const data = {
        attempt: recorder.attempt,
        ...report,
        values: { ...report.values },
        llm_calls: counters.llmCalls,
        evaluations: counters.evaluations,
        ...(notes.length > 0 ? { notes } : {}),
      };
      notes = [];
      recorder.record([{ type: "IterationCompleted", data }]);
    },
    createOptimizer: () => createOptimizer(input.optimizer.name, optimizerKwargs, llm),
    rollout: (values, examples, request = {}) =>
      rolloutMany(bundle.agent, bundle.guide, values, examples, {
        signal,
        concurrency,
        minScore: request.minScore ?? null,
        onEvaluation: () => {
          counters.evaluations += 1;
        },
      }),
    problem: (values, rollouts, feedbackSuffix) =>
      buildProblem({ parameters: bundle.parameters, values, agent: bundle.agent, rollouts, ...(feedbackSuffix !== undefined ? { feedbackSuffix } : {}) }),
    note(text) {
      notes.push(text);
    },
  };
}
