/**
 * Terminal-Bench 2.0 through the Harbor CLI (`terminal_bench:<slug>`): the trainable parameter is
 * the Terminus-2 agent's prompt template; a candidate is scored by one `harbor run` of the task
 * with that template (Harbor's Docker or Daytona sandbox and its verifier), read back from the
 * files Harbor writes. Mode stub never calls Harbor and scores 0, as the original's stub does.
 *
 * There is no artifact port for tasks yet: Harbor's command, output, results and trajectory are
 * written under `eval_kwargs.harbor_artifacts_dir` (default `./artifacts`) `/terminal_bench/`, and
 * the job's log says where, with Harbor's command and output.
 */
import { randomBytes } from "node:crypto";
import { accessSync, constants, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { TaskCallContext } from "../../../src/domain/task-call-context.js";
import { packageRoot } from "../../../src/fs/package-root.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import type { TaskSuite } from "../../../src/tasks/task-suite.js";
import { atifFeedbackSnippet, atifToTraceLike } from "./atif.js";
import { AGENT_IMPORT_PATH, DEFAULT_HARBOR_DATASET } from "./harbor-command.js";
import { harborEndpoint, harborEnv } from "./harbor-env.js";
import { harborFailure, harborScore, readHarborOutcome } from "./harbor-results.js";
import { runHarbor, type HarborProcess } from "./harbor-runner.js";
import { DEFAULT_TERMINUS2_TEMPLATE, TERMINAL_BENCH_OBJECTIVE } from "./terminus2-template.js";

export const SAMPLE_TASK_SLUGS = ["regex-log", "log-summary-date-ranges", "multi-source-data-merger", "financial-document-processor"] as const;
const PREFIX = "terminal_bench:";
const PARAMETER = "prompt_template";

/** A Terminal-Bench slug names a task, never a path: letters, digits, `.`, `_`, `-`, no `..`. */
export function isSafeSlug(slug: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(slug) && !slug.includes("..");
}

const agentDir = () => join(packageRoot(), "adapters", "tasks", "terminal_bench", "python");

/** The first executable `name` on `path`, or null. */
function findExecutable(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Python's `str(float)` for the feedback line: `1.0`, `0.5`. */
const pythonFloat = (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n));

function stringOf(name: string, value: unknown, example: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new Error(`eval_kwargs.${name} must be a non-empty string, got ${JSON.stringify(value)}; write e.g. ${name}: ${example}`);
  return value;
}

function mappingOf(name: string, value: unknown, example: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new Error(`eval_kwargs.${name} must be a mapping, got ${JSON.stringify(value)}; write e.g. ${name}: ${example}`);
  return value as Record<string, unknown>;
}

interface RealSettings {
  readonly harbor: string;
  readonly model: string;
  readonly sandbox: string;
  readonly dataset?: string;
  readonly taskPath?: string;
  readonly agentKwargs: Record<string, unknown>;
  readonly extraEnv: Record<string, string>;
  readonly timeoutS: number | null;
  readonly artifactsDir: string;
}

/** A JSON value with every object's keys sorted: files whose bytes do not depend on Harbor's key order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]));
}
const json = (value: unknown) => `${JSON.stringify(sortedKeys(value), null, 2)}\n`;

export class TerminalBenchSuite implements TaskSuite {
  readonly name = "terminal_bench";
  private mode: "stub" | "real" | null = null;

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  list(): readonly string[] {
    return SAMPLE_TASK_SLUGS.map((slug) => `${PREFIX}${slug}`);
  }

  knows(taskId: string): boolean {
    return taskId.startsWith(PREFIX) && isSafeSlug(taskId.slice(PREFIX.length));
  }

  configure(settings: { readonly mode?: "stub" | "real" }): void {
    if (settings.mode !== undefined) this.mode = settings.mode;
  }

  /** The original's order: the run's mode, else TRACE_BENCH_MODE, else eval_kwargs.mode, else real. */
  private modeOf(evalKwargs: Kwargs): string {
    return String(this.mode ?? this.env.TRACE_BENCH_MODE ?? evalKwargs.mode ?? "real").toLowerCase();
  }

  private realSettings(taskId: string, evalKwargs: Kwargs): RealSettings {
    const model = stringOf("harbor_model", evalKwargs.harbor_model, "openai/gpt-4o-mini") ?? (this.env.HARBOR_MODEL || undefined);
    if (model === undefined) throw new Error(`${taskId} in mode real needs a Harbor model: set eval_kwargs.harbor_model (e.g. openai/gpt-4o-mini) or HARBOR_MODEL`);
    const sandbox = stringOf("harbor_env", evalKwargs.harbor_env, "docker") ?? (this.env.DAYTONA_API_KEY ? "daytona" : "docker");
    const taskPath = stringOf("harbor_task_path", evalKwargs.harbor_task_path, "./tasks/regex-log");
    const dataset = taskPath === undefined ? (stringOf("harbor_dataset", evalKwargs.harbor_dataset, DEFAULT_HARBOR_DATASET) ?? DEFAULT_HARBOR_DATASET) : undefined;
    const extra = mappingOf("harbor_extra_env", evalKwargs.harbor_extra_env, "{LITELLM_LOG: INFO}");
    const extraEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(extra)) extraEnv[k] = typeof v === "string" ? v : JSON.stringify(v);
    const timeout = evalKwargs.harbor_cli_timeout_seconds;
    if (timeout !== undefined && timeout !== null && (typeof timeout !== "number" || !(timeout > 0))) {
      throw new Error(`eval_kwargs.harbor_cli_timeout_seconds must be a positive number of seconds, got ${JSON.stringify(timeout)}; write e.g. harbor_cli_timeout_seconds: 1800`);
    }
    const path = { ...this.env, ...extraEnv }.PATH;
    const harbor = findExecutable("harbor", path);
    if (harbor === null) {
      throw new TaskUnavailableError({ taskId, reason: `${taskId} needs the Harbor CLI ('harbor' is not on PATH): install it with 'uv tool install harbor' (or pip install 'harbor[daytona]>=0.6.0')` });
    }
    const artifactsRoot = stringOf("harbor_artifacts_dir", evalKwargs.harbor_artifacts_dir, "./artifacts") ?? "artifacts";
    return {
      harbor,
      model,
      sandbox,
      ...(dataset !== undefined ? { dataset } : {}),
      ...(taskPath !== undefined ? { taskPath: resolve(taskPath) } : {}),
      agentKwargs: mappingOf("harbor_agent_kwargs", evalKwargs.harbor_agent_kwargs, "{max_turns: 3}"),
      extraEnv,
      timeoutS: typeof timeout === "number" ? timeout : null,
      artifactsDir: resolve(artifactsRoot, "terminal_bench"),
    };
  }

  load(taskId: string, evalKwargs: Kwargs): TaskBundle {
    const slug = taskId.slice(PREFIX.length);
    if (!taskId.startsWith(PREFIX) || !isSafeSlug(slug)) {
      throw new TaskNotFoundError({ taskId, reason: `'${taskId}' is not a Terminal-Bench task id: write terminal_bench:<slug>, a slug of letters, digits, '.', '_' and '-' (e.g. terminal_bench:regex-log)` });
    }
    const stub = this.modeOf(evalKwargs) === "stub";
    const real = stub ? null : this.realSettings(taskId, evalKwargs);
    // The job id is not known to a task: this bundle's own id keeps its Harbor jobs apart from other jobs'.
    const bundleId = randomBytes(6).toString("hex");
    let evaluations = 0;

    const evaluate = async (template: string, context: TaskCallContext) => {
      if (real === null) return { score: 0, feedback: `STUB: terminal_bench task=${slug} (harbor not invoked)` };
      evaluations += 1;
      const jobName = `tracebench-${bundleId}-eval${String(evaluations).padStart(4, "0")}`;
      return this.evaluateWithHarbor(slug, template, jobName, real, context);
    };

    return {
      taskId,
      parameters: [{ name: PARAMETER, kind: "text", value: DEFAULT_TERMINUS2_TEMPLATE, description: "The Terminus-2 agent's prompt template (Python format string with {instruction} and {terminal_state}).", trainable: true }],
      agent: { name: "terminal_bench.PromptTemplateAgent", run: (_input, values) => values[PARAMETER] },
      guide: { name: "terminal_bench.TerminalBenchGuide", evaluate: (_input, response, _info, context) => evaluate(String(response), context) },
      train_dataset: { inputs: [slug], infos: [null] },
      optimizer_kwargs: { objective: TERMINAL_BENCH_OBJECTIVE, memory_size: 5 },
      metadata: { benchmark: "terminal_bench", entry: slug },
    };
  }

  private async evaluateWithHarbor(slug: string, template: string, jobName: string, real: RealSettings, context: TaskCallContext) {
    const dir = real.artifactsDir;
    const jobsDir = join(dir, "harbor_jobs");
    mkdirSync(jobsDir, { recursive: true });
    const templatePath = join(dir, `${jobName}.prompt_template.txt`);
    writeFileSync(templatePath, template);
    const log = (text: string) => context.log?.(text.endsWith("\n") ? text : `${text}\n`);
    const keep = (attempt: HarborProcess) => {
      writeFileSync(join(dir, `${attempt.jobName}.cmd.txt`), ["harbor", ...attempt.args].join(" "));
      writeFileSync(join(dir, `${attempt.jobName}.stdout.txt`), attempt.stdout);
      writeFileSync(join(dir, `${attempt.jobName}.stderr.txt`), attempt.stderr);
      log(`[terminal_bench] harbor ${attempt.args.join(" ")}\n[terminal_bench] exit ${attempt.exitCode}${attempt.stdout ? `\n${attempt.stdout}` : ""}${attempt.stderr ? `\n${attempt.stderr}` : ""}`);
    };
    const ran = await runHarbor(
      {
        jobName,
        jobsDir,
        model: real.model,
        env: real.sandbox,
        taskName: slug,
        ...(real.dataset !== undefined ? { dataset: real.dataset } : { taskPath: real.taskPath! }),
        agentImportPath: AGENT_IMPORT_PATH,
        agentKwargs: { ...real.agentKwargs, prompt_template_path: real.agentKwargs.prompt_template_path ?? templatePath },
      },
      {
        executable: real.harbor,
        env: harborEnv(this.env, { sandbox: real.sandbox, agentDir: agentDir(), endpoint: await harborEndpoint(context), extra: real.extraEnv }),
        cwd: dir,
        timeoutS: real.timeoutS,
        ...(context.signal !== undefined ? { signal: context.signal } : {}),
        onAttempt: keep,
      },
    );
    if (ran.timedOut) throw new Error(`harbor run timed out after ${real.timeoutS} s (eval_kwargs.harbor_cli_timeout_seconds); its output is in ${dir}`);
    if (ran.exitCode !== 0) {
      const last = ran.stderr.trim().split("\n").pop() || ran.stdout.trim().split("\n").pop() || "no output";
      throw new Error(`harbor run exited with code ${ran.exitCode}: ${last} (command and output in ${dir})`);
    }
    const outcome = readHarborOutcome(jobsDir, ran.jobName);
    if (outcome.jobResult === null) throw new Error(`Harbor's ${join(outcome.jobDir, "result.json")} is not a JSON object; cannot read the score`);
    if (outcome.trialResult === null) throw new Error(`Harbor's ${join(outcome.trialDir!, "result.json")} is not a JSON object; cannot read the score`);
    if (Object.keys(outcome.jobResult).length === 0 && Object.keys(outcome.trialResult).length === 0) {
      throw new Error(`harbor run exited 0 but wrote no result.json under ${join(jobsDir, ran.jobName)}`);
    }
    writeFileSync(join(dir, `${ran.jobName}.job_result.json`), json(outcome.jobResult));
    if (Object.keys(outcome.trialResult).length > 0) writeFileSync(join(dir, `${ran.jobName}.trial_result.json`), json(outcome.trialResult));
    const score = harborScore(outcome.jobResult, outcome.trialResult);
    const parts = [`terminal_bench task=${slug}`, `score=${pythonFloat(score)}`, `env=${real.sandbox}`];
    const failure = harborFailure(outcome.jobResult, outcome.trialResult);
    if (failure !== null) parts.push(`harbor_status=failed (${failure})`);
    if (outcome.trajectoryPath !== null) {
      const kept = join(dir, `${ran.jobName}.trajectory.json`);
      copyFileSync(outcome.trajectoryPath, kept);
      let payload: unknown = null;
      try {
        payload = JSON.parse(readFileSync(kept, "utf8"));
      } catch {
        log(`[terminal_bench] ${outcome.trajectoryPath} is not JSON: the feedback has no trajectory`);
      }
      if (payload !== null) {
        writeFileSync(join(dir, `${ran.jobName}.trajectory_trace.json`), json(atifToTraceLike(payload)));
        parts.push(`\n${atifFeedbackSnippet(payload)}`);
      }
    }
    log(`[terminal_bench] ${ran.jobName}: score ${score}; Harbor's files are in ${dir}`);
    return { score, feedback: parts.join(" ") };
  }
}
