/**
 * Runs one attempt of one job (spec §5.2): build a fresh bundle → initial evaluation → train →
 * final evaluation → test evaluation with the best values. Each phase's outcome is recorded
 * before the next phase starts. As an Effect it honours interruption (the run was cancelled →
 * `cancelled`) and the job timeout (→ `timeout`); both abort the signal handed to tasks and
 * trainers so their child processes are killed.
 */
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import type { JobSpec } from "../config/matrix.js";
import { toPlain } from "../config/kwargs.js";
import type { Llm } from "../llm/llm.js";
import type { NewEvent } from "../events/event-schema.js";
import type { EventStore } from "../events/event-store.js";
import { initialValues, trainableParameters, type ParameterValues } from "../domain/parameter.js";
import type { TrainerInfo } from "../opt/trainer-catalog.js";
import { evaluationSplit, scoreDataset, type DatasetScore } from "../tasks/score-dataset.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import { JobRecorder, RecorderClosed } from "./job-recorder.js";
import { resolvedMetadata } from "./resolved-metadata.js";
import { createTrainerContext } from "./trainer-context.js";
import { defaultOptimizerFor } from "../opt/default-optimizer.js";

export interface JobRunContext {
  readonly store: Pick<EventStore, "append">;
  readonly registry: TaskRegistry;
  readonly findTrainer: (id: string) => TrainerInfo | undefined;
  readonly invocation: number;
  /** Seconds; 0 = no limit. */
  readonly timeoutSeconds: number;
  readonly now: () => Date;
  /** The LLM a job's optimizers use (the stub in mode stub), before metering. */
  readonly createLlm: (job: JobSpec) => Llm;
}

/** What the attempt has established so far; a timeout or cancel reports it as it stands. */
interface Progress {
  bundle: TaskBundle | null;
  initial: ParameterValues | null;
  initialScore: DatasetScore | null;
  latest: ParameterValues | null;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const errorWithStack = (error: unknown) => (error instanceof Error && error.stack ? error.stack : String(error));

class JobStop extends Error {
  constructor(
    readonly kind: "FAIL" | "SKIP",
    readonly reason: string,
  ) {
    super(reason);
  }
}

function evaluationEvent(phase: "initial" | "final" | "test", attempt: number, result: DatasetScore): NewEvent {
  return {
    type: "EvaluationCompleted",
    data: { attempt, phase, split: result.split, score: result.score, feedback: result.feedback, example_scores: [...result.exampleScores] },
  };
}

function finishedData(job: JobSpec, progress: Progress, started: number, status: "ok" | "failed" | "skipped" | "timeout" | "cancelled", feedback: string, scores: { final?: DatasetScore | null; test?: DatasetScore | null; best?: ParameterValues | null } = {}) {
  const initialScore = progress.initialScore?.score ?? null;
  const finalScore = scores.final?.score ?? null;
  const scoreVal = initialScore !== null && finalScore !== null ? Math.max(initialScore, finalScore) : (finalScore ?? initialScore);
  const bundle = progress.bundle;
  return {
    status,
    feedback,
    score_val_initial: initialScore,
    score_val_final: finalScore,
    score_val: scoreVal,
    score_test: scores.test?.score ?? null,
    time_seconds: (performance.now() - started) / 1000,
    resolved: resolvedMetadata(job, bundle),
    agent: bundle?.agent.name ?? null,
    parameters: bundle?.parameters.map((p) => ({ name: p.name, kind: p.kind, trainable: p.trainable })) ?? [],
    initial_values: progress.initial,
    final_values: scores.final === undefined ? null : progress.latest,
    best_values: scores.best ?? null,
  };
}

async function attempt(job: JobSpec, ctx: JobRunContext, recorder: JobRecorder, progress: Progress, started: number, signal: AbortSignal): Promise<void> {
  const trainerInfo = ctx.findTrainer(job.trainer_id);
  try {
    if (trainerInfo === undefined) throw new JobStop("FAIL", `unknown trainer '${job.trainer_id}'; run 'trace-bench list-trainers --all'`);
    if (!trainerInfo.available || trainerInfo.load === undefined) {
      throw new JobStop("FAIL", `trainer '${job.trainer_id}' is not available: ${trainerInfo.reason ?? "unknown reason"}`);
    }
    const trainer = await trainerInfo.load();
    let bundle: TaskBundle;
    try {
      bundle = await ctx.registry.load(job.task_id, toPlain(job.resolved_kwargs.eval_kwargs));
    } catch (error) {
      if ((error as { _tag?: string })._tag === "TaskUnavailableError") throw new JobStop("SKIP", errorText(error));
      throw new JobStop("FAIL", `task_load_error: ${errorText(error)}`);
    }
    progress.bundle = bundle;
    if (trainableParameters(bundle.parameters).length === 0) throw new JobStop("FAIL", "no_trainable_parameters");
    const split = evaluationSplit(bundle);
    progress.initial = initialValues(bundle.parameters);
    progress.latest = progress.initial;
    signal.throwIfAborted();
    progress.initialScore = await scoreDataset(bundle, progress.initial, split, { signal });
    recorder.transition({ type: "BUILT" }, [evaluationEvent("initial", recorder.attempt, progress.initialScore)]);

    let trainingError: string | null = null;
    try {
      const resolved = resolvedMetadata(job, bundle);
      const context = createTrainerContext({
        bundle,
        initialValues: progress.initial,
        trainerKwargs: job.resolved_kwargs.trainer_kwargs,
        seed: job.seed,
        optimizer: { name: resolved.optimizer ?? defaultOptimizerFor(bundle.parameters), kwargs: resolved.optimizer_kwargs },
        recorder,
        llm: ctx.createLlm(job),
        signal,
        onValues: (values) => {
          progress.latest = values;
        },
      });
      const result = await trainer.train(context);
      progress.latest = result.values;
    } catch (error) {
      if (error instanceof RecorderClosed || signal.aborted) throw error;
      trainingError = `training_error: ${errorWithStack(error)}`;
    }
    recorder.transition(trainingError === null ? { type: "TRAINED" } : { type: "TRAINING_FAILED", reason: trainingError });

    signal.throwIfAborted();
    const finalScore = await scoreDataset(bundle, progress.latest ?? progress.initial, split, { signal });
    const initialScore = progress.initialScore.score;
    const best = finalScore.score !== null && (initialScore === null || finalScore.score >= initialScore) ? progress.latest : progress.initial;
    const test = bundle.test_dataset && bundle.test_dataset.inputs.length > 0 ? await scoreDataset(bundle, best ?? progress.initial, { name: "test_dataset", dataset: bundle.test_dataset }, { signal }) : null;
    const facts = [evaluationEvent("final", recorder.attempt, finalScore), ...(test ? [evaluationEvent("test", recorder.attempt, test)] : [])];
    recorder.finish(
      { type: "EVALUATED" },
      finishedData(job, progress, started, trainingError === null ? "ok" : "failed", trainingError ?? finalScore.feedback, { final: finalScore, test, best }),
      facts,
    );
  } catch (error) {
    if (error instanceof RecorderClosed || signal.aborted) throw error;
    if (error instanceof JobStop) {
      recorder.finish({ type: error.kind, reason: error.reason }, finishedData(job, progress, started, error.kind === "SKIP" ? "skipped" : "failed", error.reason));
      return;
    }
    const reason = `internal_error: ${errorWithStack(error)}`;
    recorder.finish({ type: "FAIL", reason }, finishedData(job, progress, started, "failed", reason));
  }
}

export class JobTimedOut {
  readonly _tag = "JobTimedOut";
}

/**
 * One attempt of a job as an Effect. It never fails: every outcome, including timeout and
 * interruption, ends in a committed terminal event.
 */
export function runJob(job: JobSpec, attemptNumber: number, ctx: JobRunContext): Effect.Effect<void> {
  return Effect.suspend(() => {
    const recorder = new JobRecorder(ctx.store, job.job_id, attemptNumber);
    const progress: Progress = { bundle: null, initial: null, initialScore: null, latest: null };
    const started = performance.now();
    const deadline = ctx.timeoutSeconds > 0 ? new Date(ctx.now().getTime() + ctx.timeoutSeconds * 1000).toISOString() : null;
    recorder.transition({ type: "START" }, [{ type: "JobQueued", data: { attempt: attemptNumber, invocation: ctx.invocation } }], deadline);

    const work = Effect.tryPromise({
      try: (signal) => attempt(job, ctx, recorder, progress, started, signal),
      catch: (error) => error,
    });
    const limited =
      ctx.timeoutSeconds > 0
        ? work.pipe(Effect.timeoutFail({ duration: Duration.seconds(ctx.timeoutSeconds), onTimeout: () => new JobTimedOut() }))
        : work;
    return limited.pipe(
      Effect.catchAll((error) =>
        Effect.sync(() => {
          if (error instanceof JobTimedOut) {
            const reason = `job_timeout: exceeded ${ctx.timeoutSeconds}s (work interrupted, child processes killed)`;
            recorder.finish({ type: "TIME_OUT", reason }, finishedData(job, progress, started, "timeout", reason));
          } else if (!recorder.isClosed) {
            const reason = `internal_error: ${errorWithStack(error)}`;
            recorder.finish({ type: "FAIL", reason }, finishedData(job, progress, started, "failed", reason));
          }
        }),
      ),
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          const reason = "cancelled: the run was interrupted before this job finished (it is re-run on resume)";
          recorder.finish({ type: "CANCEL", reason }, finishedData(job, progress, started, "cancelled", reason));
        }),
      ),
    );
  });
}
