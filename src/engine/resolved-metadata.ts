/**
 * What a job actually ran with (spec §5.7): optimizer, guide and logger names and the merged
 * kwargs, recorded in `JobFinished` and shown in every report.
 */
import { mergeKwargs, type Kwargs } from "../config/kwargs.js";
import type { JobSpec } from "../config/matrix.js";
import { isNoLogger } from "../opt/component-names.js";
import { defaultOptimizerFor } from "../opt/default-optimizer.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { EventData } from "../events/event-schema.js";
import { sanitize } from "../events/projections/artifact-format.js";
import { tbDir } from "../events/projections/job-paths.js";
import { writesTensorboard } from "../events/projections/tensorboard-file.js";

export type ResolvedMetadata = EventData<"JobFinished">["resolved"];

export function resolvedLoggerName(logger: string | null): string {
  if (logger === null) return "opto.trainer.loggers.ConsoleLogger";
  if (isNoLogger(logger)) return "trace_bench.null_logger.NullLogger";
  return logger.includes(".") ? logger : `opto.trainer.loggers.${logger}`;
}

export function resolvedMetadata(job: JobSpec, bundle: TaskBundle | null): ResolvedMetadata {
  const k = job.resolved_kwargs;
  const loggerKwargs = mergeKwargs(bundle?.logger_kwargs ?? {}, k.logger_kwargs) as Kwargs;
  // TensorBoard-style loggers write into the job's tb/ directory.
  if (writesTensorboard(k.logger)) loggerKwargs.logdir = tbDir(job.job_id);
  return sanitize({
    optimizer: k.optimizer ?? (bundle === null ? null : defaultOptimizerFor(bundle)),
    guide: k.guide ?? bundle?.guide.name ?? null,
    logger: bundle === null ? k.logger : resolvedLoggerName(k.logger),
    trainer_kwargs: k.trainer_kwargs,
    optimizer_kwargs: bundle === null ? k.optimizer_kwargs : mergeKwargs(bundle.optimizer_kwargs, k.optimizer_kwargs),
    guide_kwargs: mergeKwargs(bundle?.guide_kwargs ?? {}, k.guide_kwargs),
    logger_kwargs: loggerKwargs,
  }) as ResolvedMetadata;
}
