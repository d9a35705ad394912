/**
 * A TensorboardLogger job's event file (`jobs/<id>/tb/events.out.tfevents.trace-bench`), rendered
 * from its latest finished attempt like every other projection, so `replay` rebuilds it byte for
 * byte. One Event per iteration at the iteration's step and recorded time, with the scalars
 * `score`, `best_score`, `llm_calls`, `evaluations` and, when the provider reported them (not the
 * stub's estimates), `total_tokens` (the attempt's tokens so far). TensorBoard reads every file
 * whose name holds `tfevents`, in any folder below its `--logdir`.
 */
import { fileVersionEvent, scalarsEvent } from "../../codec/tensorboard-event.js";
import { concatBytes, tfRecord } from "../../codec/tfrecord.js";
import type { FinishedAttempt, JobView } from "../run-state.js";
import { tbDir } from "./job-paths.js";

/** Whether a job with this logger (as configured or resolved) writes TensorBoard event files (as the original decides where to inject a logdir: a name holding "tensorboard", any case). */
export function writesTensorboard(logger: string | null): boolean {
  return logger !== null && /tensorboard/i.test(logger);
}

export const TB_EVENT_FILE = "events.out.tfevents.trace-bench";

export const tbEventFilePath = (jobId: string) => `${tbDir(jobId)}/${TB_EVENT_FILE}`;

function scalarsOf(attempt: FinishedAttempt, index: number): [string, number][] {
  const it = attempt.iterations[index]!;
  const tokens = attempt.iteration_marks[index]?.total_tokens ?? null;
  const scalars: [string, number | null][] = [
    ["score", it.score],
    ["best_score", it.best_score],
    ["llm_calls", it.llm_calls],
    ["evaluations", it.evaluations],
    ["total_tokens", tokens],
  ];
  return scalars.filter((s): s is [string, number] => typeof s[1] === "number" && Number.isFinite(s[1]));
}

/** The job's event file, or null when its logger is not TensorboardLogger or it has not finished. */
export function tensorboardEventFile(job: JobView): Uint8Array | null {
  const done = job.finished;
  if (done === null || !writesTensorboard(job.spec.resolved_kwargs.logger)) return null;
  const marks = done.iteration_marks;
  const startedAt = marks[0]?.wall_time ?? Date.parse(done.ts) / 1000;
  const records = [tfRecord(fileVersionEvent(startedAt))];
  done.iterations.forEach((it, i) => records.push(tfRecord(scalarsEvent(marks[i]?.wall_time ?? startedAt, it.step, scalarsOf(done, i)))));
  return concatBytes(records);
}
