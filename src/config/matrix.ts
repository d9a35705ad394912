/**
 * Matrix expansion (spec §3.1): tasks × trainers × params_variants × seeds, task-major, each
 * cell a `JobSpec` whose `job_id` hashes its resolved kwargs (§3.2). When `llm.model` lists
 * several models, every cell runs once per model (before the seeds), and the model is hashed too.
 */
import { deepFreeze } from "./deep-freeze.js";
import { ConfigError } from "./config-error.js";
import { jobIdsOfCell } from "./hashing.js";
import { cloneValue, type Kwargs } from "./kwargs.js";
import { modelAxis } from "./model-axis.js";
import type { RunConfig, TaskEntry, TrainerEntry } from "./run-config.js";
import { resolveTrainerKwargs } from "./trainer-kwargs.js";

export interface ResolvedKwargs {
  readonly trainer_kwargs: Kwargs;
  readonly optimizer: string | null;
  readonly optimizer_kwargs: Kwargs | readonly Kwargs[];
  readonly guide: string | null;
  readonly guide_kwargs: Kwargs;
  readonly logger: string | null;
  readonly logger_kwargs: Kwargs;
  readonly eval_kwargs: Kwargs;
}

export interface JobSpec {
  readonly job_id: string;
  readonly task_id: string;
  readonly suite: string;
  readonly trainer_id: string;
  readonly seed: number;
  /** The job's model when the config lists several (the model axis); absent: the run's one model. */
  readonly llm_model?: string;
  /** The params variant as configured (before alias resolution). */
  readonly raw_params: Kwargs;
  readonly resolved_kwargs: ResolvedKwargs;
  readonly task: TaskEntry;
  readonly trainer: TrainerEntry;
}

/** The suite is the id's prefix; ids without one are LLM4AD tasks. */
export function suiteOfTaskId(taskId: string): string {
  const colon = taskId.indexOf(":");
  return colon < 0 ? "llm4ad" : taskId.slice(0, colon);
}

export function resolvedKwargsFor(task: TaskEntry, trainer: TrainerEntry, params: Kwargs): ResolvedKwargs {
  return {
    trainer_kwargs: resolveTrainerKwargs(params, trainer.id),
    optimizer: trainer.optimizer,
    optimizer_kwargs: cloneValue(trainer.optimizer_kwargs),
    guide: trainer.guide,
    guide_kwargs: cloneValue(trainer.guide_kwargs),
    logger: trainer.logger,
    logger_kwargs: cloneValue(trainer.logger_kwargs),
    eval_kwargs: cloneValue(task.eval_kwargs),
  };
}

export function expandMatrix(config: RunConfig): JobSpec[] {
  const jobs: JobSpec[] = [];
  const seen = new Map<string, JobSpec>();
  const axis = modelAxis(config.llm);
  const models: readonly (string | undefined)[] = axis.length > 0 ? axis : [undefined];
  for (const task of config.tasks) {
    for (const trainer of config.trainers) {
      const variants = trainer.params_variants.length > 0 ? trainer.params_variants : [{}];
      for (const params of variants) {
        // One (frozen) copy per cell, shared by its seeds and models: a copy per job made a big
        // matrix's plan grow with its seeds (docs/performance.md, ledger). Jobs read them; none writes.
        const resolved_kwargs = deepFreeze(resolvedKwargsFor(task, trainer, params));
        const raw_params = deepFreeze(cloneValue(params));
        for (const llm_model of models) {
          const model = llm_model !== undefined ? { llm_model } : {};
          const jobIdOf = jobIdsOfCell({ task_id: task.id, trainer_id: trainer.id, resolved_kwargs, ...model });
          for (const seed of config.seeds) {
            const job_id = jobIdOf(seed);
            const earlier = seen.get(job_id);
            if (earlier !== undefined) {
              throw new ConfigError({
                problems: [
                  `matrix: job ${job_id} (${task.id} x ${trainer.id}, seed=${seed}${llm_model !== undefined ? `, model=${llm_model}` : ""}) appears twice; remove the repeated task, trainer or params variant`,
                ],
              });
            }
            const job: JobSpec = {
              job_id,
              task_id: task.id,
              suite: suiteOfTaskId(task.id),
              trainer_id: trainer.id,
              seed,
              ...model,
              raw_params,
              resolved_kwargs,
              task,
              trainer,
            };
            seen.set(job_id, job);
            jobs.push(job);
          }
        }
      }
    }
  }
  return jobs;
}

/** The fields that name a job in every report: id, task, suite, trainer, seed, its model when the config lists several, and its params. */
export function jobIdentityFields(job: Pick<JobSpec, "job_id" | "task_id" | "suite" | "trainer_id" | "seed" | "llm_model" | "raw_params">) {
  return {
    job_id: job.job_id,
    task_id: job.task_id,
    suite: job.suite,
    trainer_id: job.trainer_id,
    seed: job.seed,
    ...(job.llm_model !== undefined ? { llm_model: job.llm_model } : {}),
    raw_params: job.raw_params,
  };
}
