/**
 * A re-run with nothing to do, answered from the finished run's record (finished-run-record.ts)
 * without folding the log, checking the mirrors or appending an invocation. It is taken only when
 * the full path would run no job and change no file but what each invocation records of itself
 * (its start, environment and closing), that is when all of these hold:
 *
 * * the run's last invocation finished and recorded it: the record is at the log's end, which
 *   holds every event it gave out (none removed) and ends with `RunFinished`;
 * * its projections are recorded level with that end, and every run-level report and the run's
 *   mirror are on disk as the record left them (size and time);
 * * no live process holds the writer lock, and the machine did not reboot since (files are not synced);
 * * SQLite finds every page of the log sound (`quick_check`, as a writer does before it appends);
 * * this invocation's plan is the recorded one (plan-digest.ts: config, flags that change how it
 *   runs, LLM, matrix), under the same trace-bench build;
 * * every matrix job is finished and its resume mode re-runs none of them (`--force` re-runs all);
 * * the config sets no budget cap (the closing budget line sums what the whole log spent).
 *
 * Anything else, or a log it cannot read, takes the full path, which says what is wrong.
 */
import { answerOfRecord, logRefusesRecord, sameStamps } from "../events/finished-run-facts.js";
import { readFinishedRun, soundPages, vouchedFiles } from "../events/finished-run-record.js";
import { needsRun } from "./invocation-plan.js";
import { codeIdentity, planDigest } from "./plan-digest.js";
import { plannedStart } from "./run-invocation.js";
import type { RunPlan } from "./run-plan.js";

export interface NothingToDo {
  /** The closing summary the finished run recorded (JSON, as the caller gave it). */
  readonly summary: unknown;
  /** Matrix jobs an earlier invocation finished (all of them). */
  readonly alreadyDone: number;
  /** What of the record the answer is made of (`answerOfRecord`): a saved answer holds while the record's is the same. */
  readonly recordAnswer: string;
}

/** Why the full path is taken, or null when the plan is answered from the record (`answer`). */
export function nothingToDo(plan: RunPlan, env: NodeJS.ProcessEnv): { readonly answer: NothingToDo | null; readonly because: string } {
  const no = (because: string) => ({ answer: null, because });
  if (!plan.resuming) return no("a new run");
  if (plan.resumeMode === "none") return no("resume mode none re-runs every job");
  if (Object.values(plan.config.budget).some((limit) => typeof limit === "number" && limit > 0)) return no("a budget cap is set");
  const facts = readFinishedRun(plan.runDir, codeIdentity());
  if (facts === null) return no("no finished-run record at the log's end");
  const refused = logRefusesRecord(facts);
  if (refused !== null) return no(refused);
  const { record } = facts;
  const files = vouchedFiles(plan.runDir);
  if (files === null || !sameStamps(files, record.files)) return no("a report or the run's mirror changed since the run finished");
  const statuses = Object.entries(record.statuses);
  if (statuses.reduce((n, [, count]) => n + count, 0) !== plan.jobs.length) return no("the matrix changed");
  if (statuses.some(([status]) => status === "unfinished" || needsRun(status as never, plan.resumeMode, true))) return no("some job is to run");
  if (record.plan !== planDigest(plan, plannedStart(plan, env))) return no("the plan changed");
  // Last, as it reads every page: damage where nothing above looked is refused by the full path.
  if (!soundPages(plan.runDir)) return no("the log's pages are damaged");
  return { answer: { summary: record.summary, alreadyDone: plan.jobs.length, recordAnswer: answerOfRecord(record) }, because: "nothing to do" };
}
