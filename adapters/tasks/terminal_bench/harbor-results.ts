/** What a Harbor job left in its jobs folder: the job's and the trial's result.json, the trajectory (suites.md §4.5). */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface HarborOutcome {
  readonly jobDir: string;
  readonly trialDir: string | null;
  /** `{}` when absent; null when the file exists but is not a JSON object (a malformed result). */
  readonly jobResult: Record<string, unknown> | null;
  readonly trialResult: Record<string, unknown> | null;
  readonly trajectoryPath: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

const newestFirst = (dirs: string[]) => dirs.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);

/** `<jobs>/<job name>`, else the most recently changed folder under `<jobs>`. */
function jobDirOf(jobsDir: string, jobName: string): string {
  const direct = join(jobsDir, jobName);
  return existsSync(direct) ? direct : (newestFirst(subdirs(jobsDir))[0] ?? direct);
}

/** The newest of: `trial*` folders; else `trials/*`; else any folder with a result.json (Harbor 0.6's `<task>__<id>`). */
function trialDirOf(jobDir: string): string | null {
  const inJob = subdirs(jobDir);
  let trials = inJob.filter((d) => d.slice(jobDir.length + 1).startsWith("trial") && d !== join(jobDir, "trials"));
  if (trials.length === 0) trials = subdirs(join(jobDir, "trials"));
  if (trials.length === 0) trials = inJob.filter((d) => existsSync(join(d, "result.json")));
  return newestFirst(trials)[0] ?? null;
}

function readResult(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function findFile(dir: string, name: string): string | null {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return path;
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found !== null) return found;
    }
  }
  return null;
}

export function readHarborOutcome(jobsDir: string, jobName: string): HarborOutcome {
  const jobDir = jobDirOf(jobsDir, jobName);
  const trialDir = existsSync(jobDir) ? trialDirOf(jobDir) : null;
  return {
    jobDir,
    trialDir,
    jobResult: readResult(join(jobDir, "result.json")),
    trialResult: trialDir === null ? {} : readResult(join(trialDir, "result.json")),
    trajectoryPath: trialDir === null ? null : findFile(trialDir, "trajectory.json"),
  };
}

/** One candidate value as the original reads it: bool → 1/0, number, pass/fail words, numeric text; else not a score. */
function interpret(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const word = value.toLowerCase();
    if (["true", "ok", "pass", "passed", "success"].includes(word)) return 1;
    if (["false", "fail", "failed"].includes(word)) return 0;
    const n = Number(value.trim());
    return value.trim() !== "" && !Number.isNaN(n) ? n : null;
  }
  return null;
}

/**
 * The score: the trial's then the job's `score, reward, resolved, success, passed, verified, ok`,
 * then their `summary.{score, reward, resolved, success}`; the first that reads as a score wins.
 * Then, where the original stops at 0, the trial's `verifier_result.rewards.reward`, where current
 * Harbor keeps the verifier's reward (see docs/differences.md); else 0.
 */
export function harborScore(jobResult: Record<string, unknown>, trialResult: Record<string, unknown>): number {
  const candidates: unknown[] = [];
  for (const d of [trialResult, jobResult]) {
    for (const key of ["score", "reward", "resolved", "success", "passed", "verified", "ok"]) if (key in d) candidates.push(d[key]);
    const summary = d.summary;
    if (isRecord(summary)) for (const key of ["score", "reward", "resolved", "success"]) if (key in summary) candidates.push(summary[key]);
  }
  for (const value of candidates) {
    const score = interpret(value);
    if (score !== null) return score;
  }
  const verifier = trialResult.verifier_result;
  if (isRecord(verifier) && isRecord(verifier.rewards)) {
    const reward = interpret(verifier.rewards.reward);
    if (reward !== null) return reward;
  }
  return 0;
}

/** Why Harbor's run failed (a trial exception, errored trials), or null: the original's `status`, told in a line. */
export function harborFailure(jobResult: Record<string, unknown>, trialResult: Record<string, unknown>): string | null {
  const exception = trialResult.exception_info;
  if (exception) {
    const type = isRecord(exception) ? (exception.exception_type ?? exception.type) : undefined;
    const message = isRecord(exception) ? (exception.exception_message ?? exception.message) : undefined;
    return `the trial raised ${String(type ?? "an exception")}${message ? `: ${String(message).split("\n")[0]}` : ""}`;
  }
  const stats = jobResult.stats;
  const errored = isRecord(stats) ? Number(stats.n_errored_trials ?? 0) : 0;
  return errored > 0 ? `${errored} trial(s) errored` : null;
}
