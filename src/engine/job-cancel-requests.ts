/**
 * Asking a running `trace-bench run` to cancel one job, from another process (the dashboard),
 * without signalling any pid: the asker drops a small request file into the run directory's
 * `control/` folder (written atomically), and the run process, which watches that folder while its
 * jobs run, takes each request (deletes it first, so it acts once), checks it and cancels the job.
 *
 * Anything that can write into the run dir can drop a request, so the run trusts nothing in it but
 * what it checks against its own state: the file is a small regular file (not a link) named for
 * a plain job id, its JSON names this run's id and that same job, and the job is running in this
 * invocation. A request that fails a check is deleted and reported, never acted on. At worst a
 * planted request cancels a job of the run (it is re-run on resume): no more than the writer of
 * the run dir could do to its log anyway.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSafeId } from "../events/safe-id.js";

/** The folder, under a run directory, of requests to the process writing the run. */
export const CONTROL_DIR = "control";
const PREFIX = "cancel-";
const SUFFIX = ".json";
/** A request is a few hundred bytes; anything bigger is not one. */
const MAX_REQUEST_BYTES = 4096;

/** What a request file holds. */
export interface JobCancelRequest {
  readonly run_id: string;
  readonly job_id: string;
  /** Who asked, for the report line (e.g. "the dashboard"). */
  readonly by: string;
  readonly requested_at: string;
}

/** The reason a job cancelled alone records (its status is `cancelled`; resume re-runs it). */
export function cancelledAloneReason(by: string): string {
  return `cancelled: this job alone was cancelled (asked by ${by}) while the run went on; it is re-run on resume`;
}

/** Drops a request to cancel `jobId` into the run dir (temp file + rename: the run never reads half of one). */
export function requestJobCancel(runDir: string, runId: string, jobId: string, by: string, now = new Date()): void {
  if (!isSafeId(jobId)) throw new Error(`refusing job id ${JSON.stringify(jobId)}: not a plain name`);
  const dir = join(runDir, CONTROL_DIR);
  mkdirSync(dir, { recursive: true });
  const request: JobCancelRequest = { run_id: runId, job_id: jobId, by: by.slice(0, 100), requested_at: now.toISOString() };
  const path = join(dir, `${PREFIX}${jobId}${SUFFIX}`);
  // A dot name: the run process never takes a temp file for a request.
  const temp = join(dir, `.${PREFIX}${jobId}.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(temp, `${JSON.stringify(request)}\n`, { flag: "wx" });
  renameSync(temp, path);
}

/** A request the run process took: the job to cancel and who asked, or why it was refused. */
export type TakenRequest = { readonly ok: true; readonly jobId: string; readonly by: string } | { readonly ok: false; readonly file: string; readonly problem: string };

/** Why the content of a request file is not a request for `jobId` of `runId`, or null when it is. */
function requestProblem(text: string, runId: string, jobId: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const record = value as Record<string, unknown>;
  if (record.run_id !== runId) return `its run_id is not this run's (${runId})`;
  if (record.job_id !== jobId) return "its job_id is not the one its name says";
  if (typeof record.by !== "string") return "'by' must be a string";
  return null;
}

/**
 * Takes (deletes) every request in the run dir's control folder and says what each asked for.
 * Cheap when there is none (one failed readdir): it is polled while jobs run.
 */
export function takeJobCancelRequests(runDir: string, runId: string): TakenRequest[] {
  const dir = join(runDir, CONTROL_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const taken: TakenRequest[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue; // a request being written
    const path = join(dir, name);
    const jobId = name.startsWith(PREFIX) && name.endsWith(SUFFIX) ? name.slice(PREFIX.length, -SUFFIX.length) : null;
    let text: string | null = null;
    let problem: string | null = null;
    try {
      const stat = lstatSync(path);
      if (!stat.isFile()) problem = "not a regular file";
      else if (stat.size > MAX_REQUEST_BYTES) problem = `larger than ${MAX_REQUEST_BYTES} bytes`;
      else if (jobId === null || !isSafeId(jobId)) problem = `its name is not ${PREFIX}<job id>${SUFFIX}`;
      else text = readFileSync(path, "utf8");
      // Deleted before it is acted on: a request is taken once.
      if (stat.isDirectory()) rmSync(path, { recursive: true, force: true });
      else unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // taken meanwhile
      problem ??= `unreadable (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    if (problem === null && text !== null && jobId !== null) problem = requestProblem(text, runId, jobId);
    if (problem !== null || jobId === null) taken.push({ ok: false, file: `${CONTROL_DIR}/${name}`, problem: problem ?? "unreadable" });
    else taken.push({ ok: true, jobId, by: (JSON.parse(text!) as JobCancelRequest).by });
  }
  return taken;
}

/** Removes the control folder once empty (the run is no longer there to take requests). */
export function removeControlDir(runDir: string): void {
  try {
    rmdirSync(join(runDir, CONTROL_DIR));
  } catch {
    // Not there, or a request came in late: replay lists it as a stray, and the next run discards it.
  }
}
