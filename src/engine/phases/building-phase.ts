/**
 * `building`: load the trainer and a fresh task bundle, check it, score the initial parameters.
 * Ends `BUILT` with the initial evaluation; a task this machine cannot run, or whose agent the
 * trainer cannot train in this build, ends `SKIP`.
 */
import { initialValues, trainableParameters } from "../../domain/parameter.js";
import { toPlain } from "../../config/kwargs.js";
import type { Trainer } from "../../opt/trainer.js";
import { evaluationSplit, scoreDataset } from "../../tasks/score-dataset.js";
import { CandidateLedger } from "../candidate-ledger.js";
import { evaluationFact, evaluationOptions, type AttemptScope } from "./attempt-scope.js";
import { errorText, fail, JobStop, phaseWork } from "./attempt-stops.js";
import type { PhaseEnd } from "./job-phase.js";

/**
 * Trainer implementations are stateless: each is imported once per process, keyed by the catalog's
 * entry (so another TrainerSource, a test's, never gets a trainer cached from the first).
 */
const loadedTrainers = new WeakMap<object, Trainer>();

/** The trainer's framework (DSPyTrainer's dspy) for a task whose eval_kwargs name none, as the original injects it. */
function withFramework(evalKwargs: Record<string, unknown>, trainer: Trainer): Record<string, unknown> {
  return trainer.framework === undefined || evalKwargs.framework !== undefined ? evalKwargs : { ...evalKwargs, framework: trainer.framework };
}

export async function building(scope: AttemptScope): Promise<PhaseEnd> {
  const { job, services, recorder, abort, progress } = scope;
  const attempt = recorder.attempt();
  const trainerInfo = services.trainers.find(job.trainer_id);
  if (trainerInfo === undefined) throw fail(`unknown trainer '${job.trainer_id}'; run 'trace-bench list-trainers --all'`);
  if (!trainerInfo.available || trainerInfo.load === undefined) throw fail(`trainer '${job.trainer_id}' is not available: ${trainerInfo.reason ?? "unknown reason"}`);
  const trainer: Trainer = loadedTrainers.get(trainerInfo) ?? (await phaseWork(abort, () => trainerInfo.load!()));
  loadedTrainers.set(trainerInfo, trainer);
  const bundle = await phaseWork(
    abort,
    () => Promise.resolve().then(() => services.tasks.load(job.task_id, withFramework(toPlain(job.resolved_kwargs.eval_kwargs), trainer))),
    (error) =>
      (error as { _tag?: string })._tag === "TaskUnavailableError" ? new JobStop({ type: "SKIP", reason: errorText(error) }) : fail(`task_load_error: ${errorText(error)}`),
  );
  progress.bundle = bundle;
  const cannotTrain = trainer.skipReason?.(bundle.agent, toPlain(job.resolved_kwargs.trainer_kwargs)) ?? null;
  if (cannotTrain !== null) throw new JobStop({ type: "SKIP", reason: cannotTrain });
  if (trainableParameters(bundle.parameters).length === 0) throw fail("no_trainable_parameters");
  const split = evaluationSplit(bundle);
  // The task's own output (a candidate's prints) goes to the job's log.
  const context = { signal: abort.signal, log: (text: string) => recorder.executeNow({ type: "RecordFacts", facts: [{ type: "TaskOutput", data: { attempt, text } }] }) };
  const initial = initialValues(bundle.parameters);
  progress.initial = initial;
  progress.latest = initial;
  const ledger = new CandidateLedger(bundle.parameters, { train: bundle.train_dataset, validate: bundle.validate_dataset });
  const initialScore = await phaseWork(abort, () => scoreDataset(bundle, initial, split, context, evaluationOptions(scope)));
  progress.initialScore = initialScore;
  scope.built = { trainer, bundle, split, context, ledger, initial, initialScore };
  const candidate = ledger.candidateOf(initial);
  return { event: { type: "BUILT" }, facts: [evaluationFact("initial", attempt, initialScore, candidate.id)], contents: candidate.contents };
}
