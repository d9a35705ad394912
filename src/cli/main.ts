/**
 * `trace-bench <verb>`: dispatches to one module per verb, loaded on demand so that a quick verb
 * (list-trainers) never pays for the config or engine code.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../fs/package-root.js";
import { UsageError, parseVerbArgs, verbHelp, type ParsedArgs, type VerbSpec } from "./args.js";
import { userErrorExit } from "./user-errors.js";
import { boundHeapGrowth, keepYoungGenerationSmall, tuneV8ForJobs } from "../runtime/v8-tuning.js";

export interface Verb {
  readonly spec: VerbSpec;
  execute(args: ParsedArgs): Promise<number>;
}

/**
 * `runsJobs`: the verb runs a job matrix, on a thread of its own (src/runtime/job-thread.ts), with
 * V8 tuned for that before its code loads; its flags (`spec`, a module of their own) are checked
 * first, here, so that `--help` or a flag error starts no thread and loads none of the engine.
 */
const VERBS: Readonly<
  Record<string, { readonly summary: string; readonly load: () => Promise<Verb> } | { readonly summary: string; readonly load: () => Promise<Verb>; readonly runsJobs: true; readonly spec: () => Promise<{ readonly spec: VerbSpec }> }>
> = {
  "list-tasks": { summary: "List the task ids of the selected suites", load: () => import("./list-tasks.js") },
  "list-trainers": { summary: "List the trainers and whether they can run here", load: () => import("./list-trainers.js") },
  run: { summary: "Run the job matrix of a config (crash-safe, resumable)", load: () => import("./run.js"), runsJobs: true, spec: () => import("./run-spec.js") },
  replay: { summary: "Rebuild every report of a run directory from its event log", load: () => import("./replay.js") },
  repair: { summary: "Rebuild a run directory's lost events.db from its mirror events.jsonl", load: () => import("./repair.js") },
  tokens: { summary: "Audit a run's LLM calls, tokens and cost from its log, and check results.csv and summary.json", load: () => import("./tokens.js") },
  calls: { summary: "Print a run's LLM calls: prompts, replies, outcomes, tokens", load: () => import("./calls.js") },
  compare: { summary: "Compare two runs, or two arms of a run, on the jobs both ran: paired difference, interval, tests", load: () => import("./compare.js") },
  candidates: { summary: "Print each job's candidates: scores, parents, the iteration that introduced each change", load: () => import("./candidates.js") },
  machines: { summary: "Print the job state machine (--json: the XState definition)", load: () => import("./machines.js") },
  validate: { summary: "Check a config (tasks, trainers, kwargs, matrix) without running it", load: () => import("./validate-json.js") },
  runs: { summary: "List the runs under a runs dir: status, config, job counts, tokens, cost", load: () => import("./runs.js") },
  schema: { summary: "Print the config file's JSON Schema (for editor validation and completion)", load: () => import("./schema.js") },
  ui: { summary: "Serve the local dashboard: browse, compare, launch, watch and cancel runs", load: () => import("./ui.js") },
  worker: { summary: "Run the jobs a 'run --executor bullmq' queues in Redis, on this machine", load: () => import("./worker.js") },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(VERBS).map((v) => v.length)) + 2;
  return [
    "trace-bench: benchmark LLM-as-optimizer algorithms on tasks",
    "",
    "Usage: trace-bench <command> [flags]",
    "       trace-bench --version",
    "",
    "Commands:",
    ...Object.entries(VERBS).map(([name, v]) => `  ${name.padEnd(width)}${v.summary}`),
    "",
    "Run 'trace-bench <command> --help' for the flags of a command.",
    "Exit codes: 0 success; 1 a check failed or a job failed/timed out; 2 a usage, config or environment error",
    "(one line, no stack trace); 70 an internal error (a bug: the stack is printed); 130 interrupted.",
  ].join("\n");
}

/** Like the original's python-dotenv: a `.env` in the working directory fills in unset variables. */
function loadDotEnv(): void {
  if (!existsSync(".env")) return;
  try {
    process.loadEnvFile(".env");
  } catch (error) {
    process.stderr.write(`trace-bench: warning: .env: ${error instanceof Error ? error.message : String(error)} (ignored)\n`);
  }
}

/** The package.json version, e.g. `0.1.0`. */
export function packageVersion(): string {
  return String((JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: unknown }).version ?? "unknown");
}

export async function main(argv: readonly string[]): Promise<number> {
  const [verbName] = argv;
  if (verbName === "--version" || verbName === "-V" || verbName === "version") {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  loadDotEnv();
  if (verbName === undefined || verbName === "-h" || verbName === "--help" || verbName === "help") {
    (verbName === undefined ? process.stderr : process.stdout).write(`${mainHelp()}\n`);
    return verbName === undefined ? 2 : 0;
  }
  const entry = VERBS[verbName];
  if (entry === undefined) {
    process.stderr.write(`trace-bench: unknown command '${verbName}'; commands: ${Object.keys(VERBS).join(", ")}\n`);
    return 2;
  }
  if ("runsJobs" in entry) {
    const early = await answerFlagsAlone(entry.spec, argv.slice(1));
    if (early !== undefined) return early;
  }
  if (verbName === "run") {
    // A re-run with nothing to do, answered as last time before the job thread or the verb's code loads.
    const answered = await (await import("./answered-rerun.js")).answerSavedRerun(argv.slice(1));
    if (answered !== null) return answered;
  }
  boundHeapGrowth();
  if ("runsJobs" in entry) {
    tuneV8ForJobs(); // process-wide: before the job thread starts
    // (Loaded here only: node:worker_threads alone slowed the quick verbs' start;
    // docs/performance.md: ledger, 12e480c.)
    return (await import("../runtime/job-thread.js")).runOnJobThread(new URL(import.meta.url), argv); // this module is its program
  }
  keepYoungGenerationSmall();
  return runVerb(argv);
}

/** `--help` and a flag error of a job-running verb, answered from its flags alone; undefined: the verb runs. */
async function answerFlagsAlone(loadSpec: () => Promise<{ readonly spec: VerbSpec }>, rest: readonly string[]): Promise<number | undefined> {
  try {
    const { spec } = await loadSpec();
    if (!parseVerbArgs(spec, rest).help) return undefined;
    process.stdout.write(`${verbHelp(spec)}\n`);
    return 0;
  } catch (error) {
    const exit = userErrorExit(error);
    if (exit === undefined) throw error;
    process.stderr.write(`${exit.lines.join("\n")}\n`);
    return exit.exitCode;
  }
}

/** The verb named first in `argv` (a known one), on this thread: the job thread's, for `run`. */
export async function runVerb(argv: readonly string[]): Promise<number> {
  const [verbName, ...rest] = argv;
  const entry = VERBS[verbName!]!;
  if (verbName === "run") (await import("./answered-rerun.js")).noteInvocation(rest);
  try {
    const verb = await entry.load();
    const args = parseVerbArgs(verb.spec, rest);
    if (args.help) {
      process.stdout.write(`${verbHelp(verb.spec)}\n`);
      return 0;
    }
    return await verb.execute(args);
  } catch (error) {
    const exit = userErrorExit(error);
    if (exit === undefined) throw error;
    process.stderr.write(`${exit.lines.join("\n")}\n`);
    return exit.exitCode;
  }
}

export { UsageError };
