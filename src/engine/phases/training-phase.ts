/**
 * `training`: the trainer runs with the job's LLM, its budgets and its ledger. Ends with
 * `TRAINING_ENDED` and a report of what training saw; the machine's guards pick the verdict
 * (trained, failed, budget exhausted) from it. The calls a spent budget cut off go with it.
 */
import type { TrainingReport } from "../../../machines/job.machine.js";
import { defaultOptimizerFor } from "../../opt/default-optimizer.js";
import { withTrainingGuide } from "../../opt/guides/training-guide.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { JobCalls } from "../../llm/job-calls.js";
import { isRecordError } from "../job-recorder.js";
import { resolvedMetadata } from "../resolved-metadata.js";
import { createTrainerContext } from "../trainer-context.js";
import { builtOf, type AttemptScope } from "./attempt-scope.js";
import { firstLine, stackOf, stopBySignal } from "./attempt-stops.js";
import type { PhaseEnd } from "./job-phase.js";

export async function training(scope: AttemptScope): Promise<PhaseEnd> {
  const { job, services, recorder, abort, calls, progress } = scope;
  const { trainer, bundle, ledger, initial } = builtOf(scope);
  const attempt = recorder.attempt();
  const resolved = resolvedMetadata(job, bundle);
  progress.resolved = resolved;
  const llm = services.llm.forJob(job, bundle);
  calls.setTraining(true);
  let trainerError: unknown = null;
  let threw = false;
  try {
    const result = await abort.until(
      trainer.train(
        createTrainerContext({
          // A guide the trainer entry names (LLMJudge) scores training; evaluations keep the task's.
          bundle: withTrainingGuide(bundle, job.resolved_kwargs.guide, job.resolved_kwargs.guide_kwargs),
          initialValues: initial,
          trainerKwargs: job.resolved_kwargs.trainer_kwargs,
          seed: job.seed,
          optimizer: { name: resolved.optimizer ?? defaultOptimizerFor(bundle), kwargs: resolved.optimizer_kwargs },
          recorder: { attempt, record: (facts, contents) => recorder.executeNow({ type: "RecordFacts", facts }, contents) },
          candidates: ledger,
          llm,
          calls,
          ...(scope.taskCalls !== null ? { taskCalls: scope.taskCalls } : {}),
          ...(services.llm.forEmbedding !== undefined ? { embedder: (model?: string) => services.llm.forEmbedding!(job, model) } : {}),
          ...(services.llm.forTask !== undefined ? { summarizer: () => services.llm.forTask!(job, "summarizer") } : {}),
          signal: abort.trainingSignal,
          onValues: (values: ParameterValues) => {
            progress.latest = values;
          },
        }),
      ),
    );
    progress.latest = result.values;
  } catch (error) {
    threw = true;
    trainerError = error;
  }
  calls.setTraining(false);
  const stopped = stopBySignal(abort.signal);
  if (stopped !== null) throw stopped;
  // The log refused the trainer's facts: nothing more can be recorded for this job.
  if (threw && isRecordError(trainerError)) throw trainerError;
  // A budget that stopped training aborted it: the calls it cut off are recorded with the transition.
  const cutOff = calls.budgetExhausted !== null ? calls.abortInFlight("budget") : [];
  return { event: { type: "TRAINING_ENDED", report: trainingReport(calls, threw ? trainerError : null, threw) }, facts: cutOff };
}

function trainingReport(calls: JobCalls, error: unknown, threw: boolean): TrainingReport {
  const c = calls.counts;
  return {
    budgetExhausted: calls.budgetExhausted,
    calls: { started: c.started, completed: c.completed, failed: c.failed, usable: c.usable, unusable: c.unusable },
    lastCallFailure: calls.lastFailure,
    lastUnusableReply: calls.lastUnusable,
    trainerError: threw ? { message: firstLine(error), stack: stackOf(error) } : null,
  };
}
