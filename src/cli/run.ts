/**
 * `trace-bench run`: runs the job matrix of a config (spec §1.1, §1.3). Exit codes: 0 every job
 * ok or skipped, 1 some job failed or timed out, 2 usage/config error, 130 interrupted.
 */
import { readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import type { ParsedArgs } from "./args.js";
import { spec } from "./run-spec.js";
import { UsageError } from "./args.js";
import { loadTaskRegistry } from "../../adapters/tasks/index.js";
import type { ResumeMode } from "../config/run-config.js";
import * as Layer from "effect/Layer";
import { startRun, type RunHooks, type RunReport } from "../engine/run-invocation.js";
import { planRun, type RunPlan } from "../engine/run-plan.js";
import { ConfigError } from "../config/config-error.js";
import { loadRunConfig } from "../config/run-config.js";
import { isJobTimeoutInRange, JOB_TIMEOUT_RANGE } from "../config/job-timeout-range.js";
import { configProblems } from "../engine/config-checks.js";
import { loggerFlagProblem } from "../engine/trainer-loggers.js";
import { LlmSource, scopedTaskSource, TrainerSource } from "../engine/run-services.js";
import type { LlmError } from "../llm/llm-error.js";
import { PREFLIGHT_REQUEST, preflight } from "../llm/preflight.js";
import { NOTHING, type Spend } from "../llm/budget-ledger.js";
import { earlierSpending } from "../llm/earlier-spending.js";
import { requestWorstCase } from "../llm/request-worst-case.js";
import { EventReader } from "../events/event-reader.js";
import { BUDGET_STOPPED_EXIT, budgetLine, budgetSpent, continueLine, jobsLeftByBudget } from "./budget-report.js";
import { costOf, loadPriceTable, priceOf } from "../llm/pricing.js";
import { RunCalls, type PriceOf } from "../llm/run-calls.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import { findTrainer } from "../opt/trainer-catalog.js";
import { RUN_FILES } from "../events/projections/run-files.js";
import { outcomesLine } from "../events/projections/job-outcomes.js";
import type { LlmPreflight } from "../events/event-schema.js";
import { formatUsd, type LlmSpending } from "./console-format.js";
import { isRunClosing, runClosing, UNSUCCESSFUL, type RunClosing } from "./run-closing.js";
import { ProgressReporter } from "./progress-reporter.js";
import { llmClients } from "../../adapters/llm/index.js";
import { closingJson, runSummaryJson } from "./run-summary-json.js";
import { nothingToDo } from "../engine/nothing-to-do.js";
import { vouchedFiles } from "../events/finished-run-record.js";
import { logStamp, OutputTranscript, saveAnsweredRerun, type OutputStream } from "./answered-rerun.js";
import { jobActorInspection } from "../engine/job-actor-inspection.js";
import { DEFAULT_INSPECTOR_URL } from "../../adapters/inspector/default-inspector-url.js";
import { shellWord } from "../codec/shell-word.js";
import { cliCommand } from "../fs/cli-command.js";
import { STUB_CAVEAT } from "../domain/stub-caveat.js";
import { onStopSignals } from "../runtime/stop-signals.js";
import { maxJobsOf } from "./max-jobs-flag.js";
import { remoteExecutorOf } from "./executor-flags.js";
import type { CoordinatorTransport } from "../executor/executor-protocol.js";

// The flags live in run-spec.ts, which the main thread loads alone to answer --help and flag errors.
export { spec };

function numberFlag(args: ParsedArgs, name: string, check: (n: number) => boolean, expected: string): number | undefined {
  const raw = args.flags[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw === "" || !Number.isFinite(value) || !check(value)) throw new UsageError({ verb: "run", problem: `--${name} must be ${expected}, got '${String(raw)}'` });
  return value;
}

/** `--inspect`'s WebSocket URL, checked before the run starts. */
function inspectFlag(args: ParsedArgs): string | undefined {
  const raw = args.flags.inspect as string | undefined;
  if (raw === undefined) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if ((url?.protocol !== "ws:" && url?.protocol !== "wss:") || url.hash !== "") {
    throw new UsageError({ verb: "run", problem: `--inspect takes a ws:// or wss:// URL, got '${raw}' (given bare, it connects to ${DEFAULT_INSPECTOR_URL})` });
  }
  return raw;
}

/** What the run's LLM calls cost, every attempt (replayed replies are free): tokens, and USD when every model has a price. */
function spendingLine(spending: LlmSpending): string {
  const { calls, failed, aborted, tokens, cost } = spending;
  const trouble = [failed > 0 ? `${failed} failed` : "", aborted > 0 ? `${aborted} aborted` : ""].filter(Boolean).join(", ");
  const usd = cost === null ? "cost unknown (a model has no price; see configs/pricing.yaml)" : formatUsd(cost);
  return `LLM: ${calls} calls${trouble ? ` (${trouble})` : ""}, ${tokens.total_tokens} tokens (${tokens.prompt_tokens} prompt + ${tokens.completion_tokens} completion), ${usd}`;
}

/**
 * The command that resumes this run as printed: the config, the run id, and every flag that
 * decides which run dir it is (--runs-dir when it is not the config's, --root) or what the
 * experiment is (--logger, part of config_hash), the job timeout it ran with, and the job limit
 * it was allowed (a matrix over the default limit is refused without it). It starts as this
 * process must be started again from here (cli-command.ts: `npx trace-bench` in a clone).
 */
export function resumeCommand(args: ParsedArgs, plan: Pick<RunPlan, "runId" | "config">, configRunsDir: string): string {
  const words = ["run", "--config", args.flags.config as string];
  if (args.flags.root !== undefined) words.push("--root", args.flags.root as string);
  if (plan.config.runs_dir !== configRunsDir) words.push("--runs-dir", plan.config.runs_dir);
  words.push("--run-id", plan.runId);
  for (const flag of ["logger", "job-timeout", "max-jobs", "executor", "redis"] as const) if (args.flags[flag] !== undefined) words.push(`--${flag}`, args.flags[flag] as string);
  return cliCommand(words.map(shellWord).join(" "));
}

/** Matrices this big are announced before they are expanded. */
const ANNOUNCED_MATRIX_JOBS = 10_000;

/** What a stub run's scores mean (the stub proposes seeded changes; it is not a model). */
export const STUB_LABEL = STUB_CAVEAT;

export function summaryLines(report: RunReport, resumeWith: string): string[] {
  return closingLines(runClosing(report.state), closingContext(report), resumeWith);
}

/** What the closing lines say besides the run's state: which run, where, and what this invocation did. */
export interface ClosingContext {
  readonly runId: string;
  readonly runDir: string;
  readonly matrixJobs: number;
  readonly ranJobs: number;
  readonly interrupted: boolean;
  readonly behind: readonly string[];
}

const closingContext = (report: RunReport): ClosingContext => ({
  runId: report.plan.runId,
  runDir: report.plan.runDir,
  matrixJobs: report.plan.jobs.length,
  ranJobs: report.ranJobs,
  interrupted: report.interrupted,
  behind: report.behind,
});

export function closingLines(closing: RunClosing, context: ClosingContext, resumeWith: string): string[] {
  const dir = context.runDir;
  const tally = closing.tally.map(([status, n]) => `${n} ${status}`).join(", ");
  // The log holds everything; say so when some files could not be brought level with it.
  const behind = context.behind.length === 0 ? [] : [`Reports behind the log (${context.behind.join(", ")}): rebuild them with ${cliCommand(`replay ${shellWord(dir)}`)}`];
  const spending = [spendingLine(closing.spending), ...(closing.stub ? [STUB_LABEL] : [])];
  if (context.interrupted) {
    return [
      `Run interrupted: ${context.runId} (${closing.done}/${context.matrixJobs} jobs done; ${tally})`,
      `Run dir: ${dir}`,
      `Resume with: ${resumeWith}`,
      ...spending,
      ...behind,
    ];
  }
  return [
    `Jobs: ${tally} (${context.matrixJobs} in the matrix, ${context.ranJobs} run now)`,
    outcomesLine(closing.outcomes, closing.stub),
    `Run complete: ${context.runId}`,
    `Run dir: ${dir}`,
    `Manifest: ${join(dir, RUN_FILES.manifest_json)}`,
    `Results: ${join(dir, RUN_FILES.results_csv)}`,
    `Summary: ${join(dir, RUN_FILES.summary_json)}`,
    `Leaderboard: ${join(dir, RUN_FILES.leaderboard_csv)}`,
    `Aggregates: ${join(dir, RUN_FILES.aggregate_csv)}`,
    `Files index: ${join(dir, RUN_FILES.files_index)}`,
    ...closing.scores,
    ...spending,
    ...behind,
  ];
}

export function exitCodeOf(report: RunReport): number {
  if (report.interrupted) return 130;
  const bad = report.state.orderedJobs().some((j) => j.finished !== null && UNSUCCESSFUL.includes(j.finished.status));
  return bad ? 1 : 0;
}

/**
 * What a re-run with nothing to do prints and returns, as the full path would: the line saying
 * the run is resumed with every job done, then the closing block (or `--json`'s document) of the
 * finished run, with no job run now.
 */
function answerNothingToDo(closing: RunClosing, alreadyDone: number, plan: RunPlan, json: boolean, write: (stream: OutputStream, text: string) => void): number {
  write(json ? "stderr" : "stdout", `Resuming ${plan.runId}: ${alreadyDone}/${plan.jobs.length} jobs done\n`);
  const context: ClosingContext = { runId: plan.runId, runDir: plan.runDir, matrixJobs: plan.jobs.length, ranJobs: 0, interrupted: false, behind: [] };
  const exitCode = closing.unsuccessful ? 1 : 0;
  // No budget cap is set on this path, so the budget line and document are empty.
  if (json) write("stdout", `${JSON.stringify({ ...closingJson(closing, context, exitCode, null), budget: {} }, null, 2)}\n`);
  else write("stdout", `${closingLines(closing, context, "").join("\n")}\n`);
  return exitCode;
}

const toStreams = (stream: OutputStream, text: string) => void process[stream].write(text);

/**
 * Saves the answer a re-run of this invocation would be given now that the run finished
 * (answered-rerun.ts): what this invocation printed before it decided, then the record's answer,
 * when the record answers a resumed plan of the same invocation. So the first re-run with nothing
 * to do is answered on the main thread too, not only the later ones.
 */
function saveAnswerForRerun(plan: RunPlan, printedBeforeDeciding: readonly (readonly [OutputStream, string])[], json: boolean): void {
  const logBefore = logStamp(plan.runDir);
  if (logBefore === null) return;
  const files = vouchedFiles(plan.runDir);
  const quick = nothingToDo({ ...plan, resuming: true, picked: null }, process.env);
  if (quick.answer === null || !isRunClosing(quick.answer.summary)) return;
  const writes: (readonly [OutputStream, string])[] = [...printedBeforeDeciding];
  const exitCode = answerNothingToDo(quick.answer.summary, quick.answer.alreadyDone, plan, json, (stream, text) => writes.push([stream, text]));
  saveAnsweredRerun({ runDir: plan.runDir, logBefore, files, record: quick.answer.recordAnswer, suites: new Set(plan.jobs.map((job) => job.suite)), writes, exitCode });
}

/** What a resumed run's earlier invocations spent, from its log (read-only: the writer lock is taken later). */
function spentBefore(runDir: string, price: PriceOf): Spend {
  const reader = EventReader.open(runDir);
  try {
    return earlierSpending(reader.readAfter(0), price);
  } finally {
    reader.close();
  }
}

/** A new run that stops before its first event leaves no directory behind (a resumed one is kept). */
function abandonFreshRunDir(plan: RunPlan): void {
  if (plan.resuming) return;
  try {
    rmdirSync(plan.runDir);
  } catch {
    // Not empty or already gone: leave it.
  }
}

export async function execute(args: ParsedArgs): Promise<number> {
  // What this invocation prints, kept in case it is a re-run answered from the record (answered-rerun.ts).
  const transcript = new OutputTranscript();
  try {
    const registry = await loadTaskRegistry(args.flags.root !== undefined ? { root: args.flags.root as string } : {});
    try {
      return await runWith(registry, args, transcript);
    } finally {
      // However the run ends, no evaluation worker outlives it.
      registry.close();
    }
  } finally {
    transcript.stop();
  }
}

async function runWith(registry: TaskRegistry, args: ParsedArgs, transcript: OutputTranscript): Promise<number> {
  const maxWorkers = numberFlag(args, "max-workers", (n) => Number.isInteger(n) && n >= 1, "a whole number ≥ 1");
  const jobTimeout = numberFlag(args, "job-timeout", isJobTimeoutInRange, JOB_TIMEOUT_RANGE);
  const maxJobs = maxJobsOf(args, "run");
  const inspectUrl = inspectFlag(args);
  // The inspector (ws, @statelyai/inspect) is loaded only with --inspect, before the run creates anything.
  const inspector = inspectUrl === undefined ? null : { url: inspectUrl, open: (await import("../../adapters/inspector/websocket-inspector.js")).openWebSocketInspector };
  const loggerTrouble = loggerFlagProblem(args.flags.logger as string | undefined);
  if (loggerTrouble !== null) throw new UsageError({ verb: "run", problem: loggerTrouble });
  const configPath = args.flags.config as string;
  // What `validate --strict` refuses, `run` refuses before it creates anything (one path).
  const loaded = loadRunConfig(configPath);
  const problems = await configProblems(loaded, registry, { strict: true, tasks: true });
  if (problems.length > 0) throw new ConfigError({ problems: problems.map((p) => `${p.where}: ${p.text}`) });
  // --executor bullmq: Redis must answer before the run dir exists (jobs run on `trace-bench worker`s).
  const remote = remoteExecutorOf(args, loaded.config);
  const bullmq = remote === null ? null : await import("../../adapters/bullmq/bullmq-transport.js");
  if (remote !== null && bullmq !== null) {
    try {
      await bullmq.checkRedis(remote.redis);
    } catch (error) {
      process.stderr.write(`trace-bench: cannot reach Redis at ${remote.redis} (${error instanceof Error ? error.message : String(error)}); start redis-server there or fix --redis\n`);
      return 2;
    }
  }
  // The LLM clients too (a missing API key is refused here, before the run dir exists).
  const clients = await llmClients(loaded.config);
  const forJob = clients.forJob;
  const json = args.flags.json === true;
  // With --json, stdout holds only the closing JSON document.
  const humanOut = json ? process.stderr : process.stdout;
  const plan = planRun(
    {
      configPath,
      loaded,
      ...(args.flags["runs-dir"] !== undefined ? { runsDir: args.flags["runs-dir"] as string } : {}),
      ...(maxWorkers !== undefined ? { maxWorkers } : {}),
      force: args.flags.force === true,
      ...(args.flags.resume !== undefined ? { resume: args.flags.resume as ResumeMode } : {}),
      ...(jobTimeout !== undefined ? { jobTimeout } : {}),
      ...(args.flags.logger !== undefined ? { logger: args.flags.logger as string } : {}),
      ...(args.flags["run-id"] !== undefined ? { runId: args.flags["run-id"] as string } : {}),
      maxJobs,
      // A big matrix takes seconds to expand before the first job line: say why nothing shows yet.
      onExpanding: (jobs) => {
        if (jobs >= ANNOUNCED_MATRIX_JOBS) humanOut.write(`Planning ${jobs.toLocaleString("en-US")} jobs...\n`);
      },
    },
    registry,
    new Date(),
  );
  for (const warning of plan.warnings) process.stderr.write(`trace-bench: warning: ${warning}\n`);
  if (plan.picked === "latest") process.stdout.write(`--resume failed: retrying the failed jobs of ${plan.runId}, the latest run of this config in ${plan.config.runs_dir}\n`);
  // A finished run with nothing left to do is answered from its record (nothing-to-do.ts): no
  // preflight, no log fold, no invocation appended. --inspect takes the full path (it asked to watch).
  if (inspector === null) {
    const logBefore = logStamp(plan.runDir);
    const files = vouchedFiles(plan.runDir);
    const quick = nothingToDo(plan, process.env);
    if (quick.answer !== null && isRunClosing(quick.answer.summary)) {
      const exitCode = answerNothingToDo(quick.answer.summary, quick.answer.alreadyDone, plan, json, toStreams);
      transcript.stop();
      saveAnsweredRerun({ runDir: plan.runDir, logBefore, files, record: quick.answer.recordAnswer, suites: new Set(plan.jobs.map((job) => job.suite)), writes: transcript.writes, exitCode });
      return exitCode;
    }
  }
  // What a re-run would print before it decides, as this one did (kept only while the run is watched by no inspector).
  const printedBeforeDeciding = [...transcript.writes];
  transcript.stop();
  registry.configure({ ...(plan.config.eval_workers !== null ? { workers: plan.config.eval_workers } : {}), memoryMb: plan.config.eval_memory_mb, mode: plan.config.mode });

  const progress = new ProgressReporter(humanOut, plan.jobs.length);
  let stopRun = (_error: LlmError) => {};
  const prices = loadPriceTable(plan.config.pricing);
  // The stub is free; a real model without a price costs null, never a guess.
  const price: PriceOf = plan.config.mode === "stub" ? () => 0 : (model, usage) => costOf(prices, model, usage);
  const { max_tokens_per_run, max_cost_per_run } = plan.config.budget;
  const calls = new RunCalls({
    journaling: plan.config.mode === "real",
    price,
    budget: plan.config.budget,
    // A resumed run's budget starts from what its earlier invocations spent (read before the preflight, which it pays for too).
    ...(plan.resuming && (max_tokens_per_run != null || max_cost_per_run != null) ? { spent: spentBefore(plan.runDir, price) } : {}),
    onRunStopped: (error) => stopRun(error),
  });
  const preflightRecords: LlmPreflight[] = [];
  if (plan.config.mode === "real") {
    // One client per model: every model of a list is checked before any job starts.
    const llms = [...new Set(plan.jobs.map((job) => forJob(job)))];
    const unpriced = llms.find((llm) => priceOf(prices, llm.model) === undefined);
    if ((plan.config.budget.max_cost_per_job ?? plan.config.budget.max_cost_per_run) != null && unpriced !== undefined) {
      abandonFreshRunDir(plan);
      throw new ConfigError({ problems: [`budget: a cost budget needs a price for model '${unpriced.model}'; add it under pricing: in the config (USD per 1M tokens: {input, output})`] });
    }
    for (const llm of llms) {
      const which = llms.length > 1 ? ` for model '${llm.model}'` : "";
      // The preflight is billed too: it is sent only when its worst case fits the run's budget.
      const shape = requestWorstCase(PREFLIGHT_REQUEST);
      const worst = { tokens: shape.tokens, cost: price(llm.model, { prompt_tokens: shape.prompt_tokens_at_most, completion_tokens: PREFLIGHT_REQUEST.maxTokens, total_tokens: shape.tokens }) ?? 0 };
      const refused = calls.ledger.reserve(worst);
      if (refused !== null) {
        process.stderr.write(`trace-bench: warning: the LLM preflight request${which} was not sent: ${refused.reason}\n`);
        continue;
      }
      const checked = await preflight(llm);
      calls.ledger.settle(worst, checked.ok ? { tokens: checked.response.usage.total_tokens, cost: price(llm.model, checked.response.usage) ?? 0 } : NOTHING);
      if (!checked.ok && checked.blocking) {
        abandonFreshRunDir(plan);
        process.stderr.write(`trace-bench: the LLM preflight request${which} failed (${checked.error.kind}): ${checked.error.message}; no job was started\n`);
        return 2;
      }
      if (!checked.ok) process.stderr.write(`trace-bench: warning: the LLM preflight request${which} was refused (${checked.error.message}); starting the jobs anyway\n`);
      if (checked.ok) {
        const { usage } = checked.response;
        preflightRecords.push({ model: llm.model, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens, cost_usd: costOf(prices, llm.model, usage), latency_ms: checked.latencyMs });
      }
    }
  }
  // One model: one record, as before; several: the list.
  const preflightRecord: RunHooks["preflight"] = preflightRecords.length <= 1 ? preflightRecords[0] : preflightRecords;
  const sources = Layer.mergeAll(
    scopedTaskSource(registry),
    Layer.succeed(TrainerSource, { find: findTrainer }),
    Layer.succeed(LlmSource, { forJob, calls, forTask: clients.forTask, forEmbedding: clients.forEmbedding, stubAnswers: clients.stubAnswers }),
  );
  const transport: CoordinatorTransport | null = remote !== null && bullmq !== null ? bullmq.bullmqCoordinator(remote.redis, (text) => progress.note(`trace-bench: ${text}`, process.stderr)) : null;
  const inspection = inspector === null ? null : jobActorInspection(inspector.open(inspector.url, (text) => progress.note(`trace-bench: warning: ${text}`, process.stderr)));
  const handle = startRun(plan, sources, {
    ...(preflightRecord !== undefined ? { preflight: preflightRecord } : {}),
    onResume: (runId, done, total) => {
      humanOut.write(`Resuming ${runId}: ${done}/${total} jobs done\n`);
      progress.alreadyDone(done);
    },
    report: (text) => progress.note(`trace-bench: warning: ${text}`, process.stderr),
    finishedSummary: runClosing,
    subscribers: (state) => [progress.subscriber(state), ...(inspection !== null ? [inspection.subscriber(state)] : [])],
    ...(transport !== null
      ? {
          remote: {
            transport,
            report: (text: string) => progress.note(`trace-bench: warning: ${text}`, process.stderr),
            // What a worker rebuilds the jobs from: the config's text and the plan's overrides (no secret: keys stay in the workers' environment).
            recipe: {
              configPath,
              configText: readFileSync(configPath, "utf8"),
              runId: plan.runId,
              maxWorkers: plan.config.max_workers,
              ...(args.flags.logger !== undefined ? { logger: args.flags.logger as string } : {}),
              resume: plan.resumeMode,
              timeoutSeconds: plan.timeoutSeconds,
            },
          },
        }
      : {}),
  });
  stopRun = (error) => {
    progress.note(`trace-bench: the LLM refused the run (${error.kind}): ${error.message}; stopping (no retries, no further jobs)`, process.stderr);
    handle.interrupt(`llm_${error.kind}`);
  };
  // Nothing runs until a worker takes the jobs: say where they wait.
  if (remote !== null) humanOut.write(`Jobs are queued in Redis at ${remote.redis}; each runs on a worker (start one on any machine with: trace-bench worker --redis ${remote.redis})\n`);
  progress.start();
  let signals = 0;
  const stopListening = onStopSignals((signal) => {
    signals += 1;
    if (signals > 1) process.exit(130); // a second Ctrl-C: every committed event is already safe
    progress.note(`${signal}: cancelling running jobs (press Ctrl-C again to exit at once)`);
    handle.interrupt(signal);
  });
  try {
    const report = await handle.done;
    progress.stop();
    const resumeWith = resumeCommand(args, plan, loaded.config.runs_dir);
    const spentOnBudgets = budgetSpent(plan.config.budget, calls);
    const closing = [...summaryLines(report, resumeWith), ...budgetLine(spentOnBudgets)];
    const refused = calls.stoppedBy;
    // Stopped by the run's budget with matrix jobs never started: the run is not done.
    const leftByBudget = report.interrupted ? 0 : jobsLeftByBudget(report.state.notRun);
    const exitCode = refused !== null ? 2 : leftByBudget > 0 ? BUDGET_STOPPED_EXIT : exitCodeOf(report);
    if (json) {
      const resume = closing.find((line) => line.startsWith("Resume with: "))?.slice("Resume with: ".length) ?? (leftByBudget > 0 ? resumeWith : null);
      process.stdout.write(`${JSON.stringify({ ...runSummaryJson(report, exitCode, resume), budget: spentOnBudgets }, null, 2)}\n`);
    } else process.stdout.write(`${closing.join("\n")}\n`);
    if (refused !== null) {
      process.stderr.write(`trace-bench: run stopped: the LLM refused it (${refused.kind}): ${refused.message}; fix the key or model, then resume\n`);
      return 2;
    }
    if (leftByBudget > 0) process.stderr.write(`${continueLine(leftByBudget, calls.runBudgetSpent() ?? "", configPath, resumeWith)}\n`);
    else if (!report.interrupted && inspector === null) saveAnswerForRerun(plan, printedBeforeDeciding, json);
    return exitCode;
  } finally {
    progress.stop();
    stopListening();
    await inspection?.close();
    await transport?.close();
  }
}
