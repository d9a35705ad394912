/**
 * `trace-bench validate`: every check that needs no run (spec §1.3). Prints one verdict line per
 * trainer problem and task, and with --strict also kwargs, trainables, the job matrix and a
 * manifest in the runs dir's `.validate/` folder (apart from the runs: `runs` and resume never see it). In mode real a missing API key is a warning, with --strict a failed
 * check. Exit 1 when any check failed.
 */
import { variantSuffix } from "../config/variant-label.js";
import { join } from "node:path";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { BENCH_FLAG, CONFIG_FLAG, ROOT_FLAG, RUNS_DIR_FLAG } from "./common-flags.js";
import { loadTaskRegistry } from "../../adapters/tasks/index.js";
import { pythonUtcIso } from "../codec/python-datetime.js";
import { mergeKwargs, toPlain } from "../config/kwargs.js";
import { expandMatrix, jobIdentityFields, suiteOfTaskId } from "../config/matrix.js";
import { pythonPrettyJson } from "../codec/python-json.js";
import { loadRunConfig, type RunConfig, type TaskEntry } from "../config/run-config.js";
import { computeConfigHash, configSnapshot, newRunId } from "../config/snapshot.js";
import { gitHeadSha } from "../engine/run-environment.js";
import { RunDirError } from "../engine/run-dir-error.js";
import { missingApiKeys, resolveLlmRoles } from "../llm/llm-roles.js";
import { llmForModel } from "../config/model-axis.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { trainableParameters } from "../domain/parameter.js";
import { comparabilityNotes, configProblems, tasksOutsideRoots } from "../engine/config-checks.js";
import { ConfigError } from "../config/config-error.js";
import { escapeControls } from "../codec/control-chars.js";
import { configSuiteSelection } from "../tasks/bench-selector.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import { matrixLimitProblem, matrixSize } from "../config/matrix-size.js";
import { MAX_JOBS_FLAG, maxJobsOf } from "./max-jobs-flag.js";

export const spec: VerbSpec = {
  name: "validate",
  summary: "Check a run config without running it: trainers, tasks and, with --strict, kwargs, trainable parameters and the job matrix.",
  flags: {
    config: CONFIG_FLAG,
    root: ROOT_FLAG,
    bench: { ...BENCH_FLAG, description: "Only validate tasks of these suites (same values as list-tasks --bench)." },
    strict: { type: "boolean", description: "Deep checks (in mode real a missing API key fails too), and write the matrix to <runs-dir>/.validate/<run_id>.manifest.json." },
    "runs-dir": { ...RUNS_DIR_FLAG, description: "Where --strict writes its manifest (default: the config's runs_dir)." },
    "max-jobs": MAX_JOBS_FLAG,
  },
};

/** The outcome of building a task's bundle once. */
type TaskLoad =
  | { readonly kind: "ok"; readonly bundle: TaskBundle }
  | { readonly kind: "skipped"; readonly reason: string }
  | { readonly kind: "failed"; readonly reason: string };

async function loadTask(registry: TaskRegistry, task: TaskEntry): Promise<TaskLoad> {
  try {
    return { kind: "ok", bundle: await registry.load(task.id, toPlain(task.eval_kwargs)) };
  } catch (error) {
    const tag = (error as { _tag?: string })._tag;
    const reason = error instanceof Error ? error.message : String(error);
    return tag === "TaskUnavailableError" ? { kind: "skipped", reason } : { kind: "failed", reason };
  }
}

/** Where `validate --strict` writes its manifests inside a runs dir: a dot folder, so it is not taken for a run. */
export const VALIDATE_DIR = ".validate";

const pyList = (items: readonly string[]) => `[${[...items].sort().map((s) => `'${s}'`).join(", ")}]`;

export async function execute(args: ParsedArgs): Promise<number> {
  const configPath = args.flags.config as string;
  const strict = args.flags.strict === true;
  const registry = await loadTaskRegistry(args.flags.root !== undefined ? { root: args.flags.root as string } : {});
  try {
    return await validateWith(registry, args, configPath, strict);
  } finally {
    // The evaluation workers a task load started must not keep the process alive.
    registry.close();
  }
}

async function validateWith(registry: TaskRegistry, args: ParsedArgs, configPath: string, strict: boolean): Promise<number> {
  const selection = configSuiteSelection(args.flags.bench as string | undefined, registry.suiteNames());
  const maxJobs = maxJobsOf(args, "validate");
  const loaded = loadRunConfig(configPath);
  // Suites whose tasks load differently by mode (terminal_bench: stub never needs Harbor) load as `run` would.
  registry.configure({ mode: loaded.config.mode });
  // A task outside its root is refused as a config error before anything is loaded (as `run` does).
  const outside = tasksOutsideRoots(loaded, registry);
  if (outside.length > 0) throw new ConfigError({ problems: outside.map((p) => `${p.where}: ${p.text}`) });
  // Under --strict an unknown key is a failed check (as in `run`), not a warning.
  const unknownKeys = new Set(loaded.unknownKeys.map((line) => `${line} (ignored)`));
  for (const warning of loaded.warnings) if (!strict || !unknownKeys.has(warning)) process.stderr.write(`trace-bench: warning: ${escapeControls(warning)}\n`);

  const lines: string[] = [];
  let errors = 0;
  const fail = (line: string) => {
    lines.push(`[FAIL] ${line}`);
    errors++;
  };

  // A missing key would stop a real run at its first call; --strict treats that as a failed check.
  if (loaded.config.mode === "real") {
    // Every model of a list reads the same key variables: the block's first model stands for all.
    for (const problem of missingApiKeys(resolveLlmRoles(llmForModel(loaded.config.llm), process.env), process.env)) {
      if (strict) fail(problem);
      else process.stderr.write(`trace-bench: warning: ${escapeControls(problem)}\n`);
    }
  }

  // The same checks `run` makes before it creates anything (src/engine/config-checks.ts).
  const problems = await configProblems(loaded, registry, { strict, tasks: false });
  for (const problem of problems) fail(`${problem.text} [${problem.where}]`);
  if (!strict) {
    // What `run` would refuse, plain validate says too, as warnings (unknown keys were said above).
    const said = new Set(problems.map((p) => `${p.text} [${p.where}]`));
    for (const problem of await configProblems({ ...loaded, unknownKeys: [] }, registry, { strict: true, tasks: false })) {
      const line = `${problem.text} [${problem.where}]`;
      if (!said.has(line)) process.stderr.write(`trace-bench: warning: ${escapeControls(line)} (run refuses this; validate --strict fails it)\n`);
    }
  }
  for (const note of comparabilityNotes(loaded)) lines.push(`[NOTE] ${note.text} [${note.where}]`);

  // Without --bench every task of the config is checked, Terminal-Bench's too (as the original does).
  const tasks = registry.expandTasks(loaded.config.tasks).filter((t) => selection === null || selection.includes(suiteOfTaskId(t.id)));
  const loads = new Map<TaskEntry, TaskLoad>();
  for (const task of tasks) {
    const unknown = registry.unknownTask(task.id);
    if (unknown !== null) {
      fail(`${task.id}: ${unknown}`);
      continue;
    }
    const load = await loadTask(registry, task);
    loads.set(task, load);
    if (load.kind === "skipped") lines.push(`[SKIP] ${task.id}: ${load.reason}`);
    else if (load.kind === "failed") fail(`${task.id}: ${load.reason}`);
    else if (strict && trainableParameters(load.bundle.parameters).length === 0) {
      if (task.id === "internal:non_trainable") lines.push(`[EXPECTED] ${task.id}: no_trainable_parameters`);
      else fail(`${task.id}: no_trainable_parameters`);
    } else lines.push(`[OK] ${task.id}`);
  }

  // The matrix is counted before it is expanded: one over the limit is never expanded.
  const overLimit = matrixLimitProblem(matrixSize({ ...loaded.config, tasks }), maxJobs);
  if (overLimit !== null && !strict) process.stderr.write(`trace-bench: warning: ${overLimit} (run refuses this; validate --strict fails it)\n`);
  if (strict && overLimit !== null) fail(overLimit);
  else if (strict) {
    const config: RunConfig = { ...loaded.config, tasks };
    const jobs = expandMatrix(config);
    if (jobs.length === 0) fail("matrix: no jobs expanded");
    else {
      lines.push("", `[OK] matrix: ${jobs.length} jobs expanded deterministically`);
      for (const job of jobs) lines.push(`  job ${job.job_id}: ${job.task_id} x ${job.trainer_id}${variantSuffix(job.raw_params)} (seed=${job.seed}${job.llm_model !== undefined ? `, model=${job.llm_model}` : ""})`);
      lines.push("", `  tasks:    ${pyList([...new Set(jobs.map((j) => j.task_id))])}`, `  trainers: ${pyList([...new Set(jobs.map((j) => j.trainer_id))])}`);
    }
    const snapshot = configSnapshot(config);
    const now = new Date();
    const runId = newRunId(snapshot, gitHeadSha(), now);
    const validateDir = join((args.flags["runs-dir"] as string | undefined) ?? config.runs_dir, VALIDATE_DIR);
    const manifest = {
      run_id: runId,
      generated_at: pythonUtcIso(now),
      config_hash: computeConfigHash(snapshot),
      jobs: jobs.map((job) => {
        const load = loads.get(job.task);
        const bundle = load?.kind === "ok" ? load.bundle : undefined;
        return {
          ...jobIdentityFields(job),
          resolved_trainer_kwargs: job.resolved_kwargs.trainer_kwargs,
          resolved_optimizer_kwargs: bundle ? mergeKwargs(bundle.optimizer_kwargs, job.resolved_kwargs.optimizer_kwargs) : job.resolved_kwargs.optimizer_kwargs,
          resolved_guide_kwargs: mergeKwargs(bundle?.guide_kwargs ?? {}, job.resolved_kwargs.guide_kwargs),
          resolved_logger_kwargs: mergeKwargs(bundle?.logger_kwargs ?? {}, job.resolved_kwargs.logger_kwargs),
          eval_kwargs: job.resolved_kwargs.eval_kwargs,
          status_hint: load?.kind ?? "failed",
          skip_reason: load === undefined || load.kind === "ok" ? null : load.kind === "failed" ? `task_load_error: ${load.reason}` : load.reason,
        };
      }),
    };
    const manifestPath = join(validateDir, `${runId}.manifest.json`);
    try {
      writeFileAtomic(manifestPath, `${pythonPrettyJson(manifest)}\n`);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? String(cause);
      throw new RunDirError({ problem: `cannot write the manifest ${manifestPath} (${code}); pass a writable directory with --runs-dir` });
    }
    lines.push(`[OK] manifest written: ${manifestPath}`);
  }

  // Task ids and keys come from the config: never sent raw to the terminal.
  process.stdout.write(`${lines.map(escapeControls).join("\n")}\n`);
  return errors > 0 ? 1 : 0;
}
