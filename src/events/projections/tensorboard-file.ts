/**
 * A TensorboardLogger job's event file, rendered from its latest finished attempt like every other
 * projection, so `replay` rebuilds it byte for byte. One Event per iteration at the iteration's
 * step and recorded time, with the scalars `score`, `best_score`, `llm_calls`, `evaluations` and,
 * when the provider reported them (not the stub's estimates), `total_tokens` (the attempt's tokens
 * so far), then, for a multi-objective guide, `score/<metric>` for each metric of the iteration's
 * candidate (sorted by name; the per-metric means the trainer reported with the step). TensorBoard reads every file whose name holds `tfevents`, in any folder below its
 * `--logdir`, and names each run by the folder that holds the file, relative to the logdir.
 *
 * The file lies in a folder of its own under the job's `tb/` (the original's logdir, the row's
 * `tb_logdir`), named after the job: `jobs/<id>/tb/<task>__<trainer>__<variant label>__seed=<k>
 * [__model=<m>]/events.out.tfevents.trace-bench`. So `tensorboard --logdir <run>/jobs` names each
 * run `<id>/tb/<that name>`, and its runs filter finds a variant by its label (`ps_steps=2`) as it
 * is in results.csv's `variant` column; pointed at a job's `tb_logdir` it shows the one run.
 */
import { fileVersionEvent, scalarsEvent } from "../../codec/tensorboard-event.js";
import { concatBytes, tfRecord } from "../../codec/tfrecord.js";
import { variantLabel } from "../../config/variant-label.js";
import { MAX_NAME_BYTES, portableFolderName } from "../../fs/portable-folder-name.js";
import type { JobSpecRecord } from "../event-schema.js";
import type { FinishedAttempt, JobView } from "../run-state.js";
import { tbDir } from "./job-paths.js";
import { byName } from "./metric-columns.js";
import { BoundedMemo } from "../../runtime/bounded-memo.js";

/** Whether a job with this logger (as configured or resolved) writes TensorBoard event files (as the original decides where to inject a logdir: a name holding "tensorboard", any case). */
export function writesTensorboard(logger: string | null): boolean {
  return logger !== null && /tensorboard/i.test(logger);
}

export const TB_EVENT_FILE = "events.out.tfevents.trace-bench";

/** What a job's TensorBoard run is named after: the parts of its job line. */
export type TbRunSubject = Pick<JobSpecRecord, "job_id" | "task_id" | "trainer_id" | "seed" | "raw_params" | "llm_model">;

const PART_SEPARATOR = "__";
/** A variant label shortened to fit keeps at least this many bytes besides its `~` and hash. */
const LEAST_LABEL_BYTES = 24 + 9;

/** Portable parts by their text, remembered (a matrix repeats its tasks, trainers and labels job after job); a few hundred at most. */
const portableParts = new BoundedMemo<string, string>(512);
function portablePart(text: string): string {
  return portableParts.get(text, () => portableFolderName(text));
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * The folder that names the job's TensorBoard run (see the file comment). Each part is made
 * portable on its own (portable-folder-name.ts) and, when the whole would be too long, the
 * variant label gives way first (cut, with a hash of it), so task, trainer, seed and model stay whole.
 */
export function tbRunName(job: TbRunSubject): string {
  const before = [portablePart(job.task_id), portablePart(job.trainer_id)];
  const after = [portablePart(`seed=${job.seed}`), ...(job.llm_model !== undefined ? [portablePart(`model=${job.llm_model}`)] : [])];
  const label = portablePart(variantLabel(job.raw_params));
  const others = [...before, ...after].reduce((n, p) => n + utf8Bytes(p) + PART_SEPARATOR.length, 0);
  // Portable parts joined by `__` are a portable name: only its length is left to check.
  if (others + utf8Bytes(label) <= MAX_NAME_BYTES) return [...before, label, ...after].join(PART_SEPARATOR);
  const labelPart = portableFolderName(variantLabel(job.raw_params), Math.max(LEAST_LABEL_BYTES, MAX_NAME_BYTES - others));
  return portableFolderName([...before, labelPart, ...after].join(PART_SEPARATOR));
}

/** The job's TensorBoard run folder, relative to the run directory. */
export const tbRunDir = (job: TbRunSubject) => `${tbDir(job.job_id)}/${tbRunName(job)}`;

/** The job's event file, relative to the run directory (whether or not the job writes one). */
export const tbEventFilePath = (job: TbRunSubject) => `${tbRunDir(job)}/${TB_EVENT_FILE}`;

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
  for (const metric of Object.keys(it.scores ?? {}).sort(byName)) scalars.push([`score/${metric}`, it.scores![metric]!]);
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
