/**
 * Everything decided before a run executes (spec §1.4, §5.1): CLI overrides applied to the
 * config, tasks expanded, the job matrix, the effective timeout, and which run directory to
 * write (a new run, an explicit `--run-id`, or the most recent unfinished run of the same
 * experiment).
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/config-error.js";
import { expandMatrix, type JobSpec } from "../config/matrix.js";
import { DEFAULT_MAX_JOBS, matrixLimitProblem, matrixSize } from "../config/matrix-size.js";
import { loadRunConfig, type LoadedConfig, type ResumeMode, type RunConfig } from "../config/run-config.js";
import { computeConfigHash, configSnapshot, newRunId, type ConfigSnapshot } from "../config/snapshot.js";
import { peekRun, readableRuns, type RunPeek } from "../events/event-reader.js";
import { isSafeId } from "../events/safe-id.js";
import { makeDirectory } from "../fs/make-directory.js";
import { isNoLogger } from "../opt/component-names.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import { configName } from "./config-name.js";
import { RunDirError } from "./run-dir-error.js";
import { gitHeadSha } from "./run-environment.js";
import { keepsConfigLoggers, loggerFlagProblem } from "./trainer-loggers.js";

export interface RunRequest {
  readonly configPath: string;
  /** The config already loaded from configPath (and checked), so it is read once. */
  readonly loaded?: LoadedConfig;
  readonly runsDir?: string;
  readonly maxWorkers?: number;
  readonly force?: boolean;
  readonly resume?: ResumeMode;
  readonly jobTimeout?: number;
  readonly logger?: string;
  readonly runId?: string;
  /** The most jobs the matrix may have (default `DEFAULT_MAX_JOBS`); a bigger one is a `ConfigError`, found before any job is expanded. */
  readonly maxJobs?: number;
  /** Told the matrix's size once it is within the limit, before its jobs are expanded (a big one takes a while). */
  readonly onExpanding?: (jobs: number) => void;
}

export interface RunPlan {
  readonly config: RunConfig;
  readonly warnings: readonly string[];
  readonly jobs: readonly JobSpec[];
  readonly snapshot: ConfigSnapshot;
  readonly configHash: string;
  readonly runId: string;
  readonly runDir: string;
  /** Whether runDir already holds this run's log (a resume). */
  readonly resuming: boolean;
  /** Why this run dir was picked when no run id was given: the run it resumes, said on stdout. */
  readonly picked: "unfinished" | "latest" | null;
  readonly resumeMode: ResumeMode;
  readonly timeoutSeconds: number;
  /** The config file's name, recorded in RunStarted; null when it is the run's own snapshot. */
  readonly configName: string | null;
}

/**
 * `--logger` (spec §1.4): absent, empty, `default` or `config` → keep the config's; a none-alias →
 * "none"; a usable logger → itself. Anything else is refused (the original warned and kept the
 * config's loggers, so a typo silently ran without the logger asked for).
 */
export function loggerOverride(raw: string | undefined): string | undefined {
  if (keepsConfigLoggers(raw)) return undefined;
  // The CLI refuses such a flag first, with exit 2.
  const problem = loggerFlagProblem(raw);
  if (problem !== null) throw new Error(problem);
  return isNoLogger(raw) ? "none" : raw.trim();
}

/** The timeout rule of spec §1.4: flag, else config, else the mode's default (stub 0, real 600). */
export function effectiveTimeout(config: RunConfig, flag: number | undefined): number {
  if (flag !== undefined) return flag;
  if (config.job_timeout !== null) return config.job_timeout;
  return config.mode === "stub" ? 0 : 600;
}

/**
 * The most recent run in runsDir whose latest invocation did not finish, for this experiment.
 * Directories whose log cannot be read, or names another run, are skipped with a warning.
 */
export function findUnfinishedRun(runsDir: string, configHash: string, warnings: string[]): string | null {
  return findRunOfConfig(runsDir, configHash, warnings, (peek) => !peek.finished);
}

/**
 * The most recently started run in runsDir of this experiment, finished or not (`--resume failed`
 * without a run id retries its failures). Skips what `findUnfinishedRun` skips.
 */
export function findLatestRun(runsDir: string, configHash: string, warnings: string[]): string | null {
  return findRunOfConfig(runsDir, configHash, warnings, () => true);
}

function findRunOfConfig(runsDir: string, configHash: string, warnings: string[], wanted: (peek: RunPeek) => boolean): string | null {
  const { runs, warnings: unreadable } = readableRuns(runsDir);
  warnings.push(...unreadable);
  // Latest first: by when the run was first started, then by name (ids start with a UTC stamp).
  const order = (a: { name: string; peek: RunPeek }, b: { name: string; peek: RunPeek }) =>
    a.peek.firstStartedAt !== b.peek.firstStartedAt ? (a.peek.firstStartedAt < b.peek.firstStartedAt ? 1 : -1) : a.name < b.name ? 1 : -1;
  for (const { name, peek } of runs.sort(order)) {
    if (peek.runId !== name) {
      warnings.push(`skipping ${join(runsDir, name)}: its log belongs to run '${peek.runId}' (a copied or renamed run directory)`);
      continue;
    }
    if (peek.configHash === configHash && wanted(peek)) return name;
  }
  return null;
}

/**
 * Creates the directory of a new run. A new run never writes into an existing one: the same
 * config started twice in one second gets `-2` (mkdir fails for the second, atomically).
 */
function claimFreshRunDir(runsDir: string, candidate: string): string {
  for (let n = 1; ; n++) {
    const id = n === 1 ? candidate : `${candidate}-${n}`;
    try {
      mkdirSync(join(runsDir, id));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new RunDirError({ problem: `cannot create the run directory ${join(runsDir, id)} (${whyNot(error)}); pass a writable directory with --runs-dir` });
    }
  }
}

const FILE_SYSTEM_REFUSALS: Readonly<Record<string, string>> = {
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOSPC: "the disk is full",
  ENOTDIR: "a path component is a file",
};

/** Why the file system refused, in words, with its code. */
function whyNot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return String(error);
  return FILE_SYSTEM_REFUSALS[code] === undefined ? code : `${FILE_SYSTEM_REFUSALS[code]}: ${code}`;
}

/** The runs dir must be a directory (created if missing); a file there is a one-line error. */
function ensureRunsDir(runsDir: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(runsDir).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new RunDirError({ problem: `cannot use runs dir ${runsDir} (${whyNot(error)}); pass a writable directory with --runs-dir` });
    try {
      makeDirectory(runsDir);
    } catch (cause) {
      throw new RunDirError({ problem: `cannot create runs dir ${runsDir} (${whyNot(cause)}); pass a writable directory with --runs-dir` });
    }
    return;
  }
  if (!isDirectory) throw new RunDirError({ problem: `runs dir ${runsDir} is a file, not a directory; pass a directory with --runs-dir` });
}

/**
 * The run's config as the plan reads it: the flags' overrides applied, the task globs expanded.
 * A `trace-bench worker` rebuilds the same from the coordinator's recipe, so its jobs are the plan's.
 */
export function plannedConfig(loaded: LoadedConfig, request: Pick<RunRequest, "runsDir" | "maxWorkers" | "logger">, resumeMode: ResumeMode, registry: Pick<TaskRegistry, "expandTasks">): RunConfig {
  const logger = loggerOverride(request.logger);
  return {
    ...loaded.config,
    runs_dir: request.runsDir ?? loaded.config.runs_dir,
    max_workers: request.maxWorkers ?? loaded.config.max_workers,
    resume: resumeMode,
    tasks: registry.expandTasks(loaded.config.tasks),
    trainers: logger === undefined ? loaded.config.trainers : loaded.config.trainers.map((t) => ({ ...t, logger })),
  };
}

export function planRun(request: RunRequest, registry: TaskRegistry, now: Date): RunPlan {
  const loaded = request.loaded ?? loadRunConfig(request.configPath);
  const warnings = [...loaded.warnings];
  const resumeMode: ResumeMode = request.force ? "none" : (request.resume ?? loaded.config.resume);
  const base = plannedConfig(loaded, request, resumeMode, registry);
  const size = matrixSize(base);
  const overLimit = matrixLimitProblem(size, request.maxJobs ?? DEFAULT_MAX_JOBS);
  if (overLimit !== null) throw new ConfigError({ problems: [`${request.configPath}: ${overLimit}`] });
  request.onExpanding?.(size.jobs);
  const jobs = expandMatrix(base);
  const configHash = computeConfigHash(configSnapshot(base));
  const explicitId = request.runId ?? base.run_id ?? null;
  const idSource = request.runId !== undefined ? "--run-id" : `run_id in ${request.configPath}`;
  if (explicitId !== null && !isSafeId(explicitId)) {
    throw new RunDirError({
      problem: `${idSource}: ${JSON.stringify(explicitId)} is not a plain name (a run id names a directory inside the runs dir); use letters, digits, '.', '_' and '-' only, not starting with '.' and without '..', e.g. my-run.1`,
    });
  }
  ensureRunsDir(base.runs_dir);
  const picked = explicitId !== null || resumeMode === "none" ? null : resumeMode === "failed" ? findLatestRun(base.runs_dir, configHash, warnings) : findUnfinishedRun(base.runs_dir, configHash, warnings);
  const resumable = explicitId ?? picked;
  const existing = resumable === null ? null : peekRun(join(base.runs_dir, resumable));
  if (explicitId !== null && existing !== null && existing.configHash !== configHash) {
    // One run dir, one experiment: resuming with another config would mix two experiments' results.
    throw new RunDirError({
      problem:
        `${idSource}: run ${join(base.runs_dir, explicitId)} was made by another config (config_hash ${existing.configHash}; ${request.configPath} has ${configHash}); ` +
        `pass a new run id to start a new run, or resume it with the config that made it (${join(base.runs_dir, explicitId, "meta", "config.snapshot.yaml")})`,
    });
  }
  const resuming = existing !== null;
  const runId = resumable ?? claimFreshRunDir(base.runs_dir, newRunId(configSnapshot(base), gitHeadSha(), now));
  const runDir = join(base.runs_dir, runId);
  const config: RunConfig = { ...base, run_id: runId };
  return {
    config,
    warnings,
    jobs,
    snapshot: configSnapshot(config),
    configHash,
    runId,
    runDir,
    resuming,
    picked: picked === null ? null : resumeMode === "failed" ? "latest" : "unfinished",
    resumeMode,
    timeoutSeconds: effectiveTimeout(config, request.jobTimeout),
    configName: configName(request.configPath, runDir),
  };
}
