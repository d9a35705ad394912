/**
 * `trace-bench worker --redis URL [--concurrency N] [--root DIR]`: takes the jobs that
 * `trace-bench run --executor bullmq --redis URL` queues, on this machine, and runs each with the
 * same job runner as a local run; the events go back to the `run` process, the only writer of the
 * run's log. It serves any run queued on that Redis until Ctrl-C (which cancels its running jobs:
 * each is recorded `cancelled` and re-run on resume; a ticket it took but has not started goes
 * back to the queue for another worker). API keys are read from this machine's
 * environment; nothing secret goes through Redis.
 */
import type { ParsedArgs, VerbSpec } from "./args.js";
import { UsageError } from "./args.js";
import { ROOT_FLAG } from "./common-flags.js";
import { loadTaskRegistry } from "../../adapters/tasks/index.js";
import { llmClients } from "../../adapters/llm/index.js";
import { parseConfigText } from "../config/config-file.js";
import { expandMatrix } from "../config/matrix.js";
import { resolveRunConfig, type ResumeMode } from "../config/run-config.js";
import { plannedConfig } from "../engine/run-plan.js";
import { RecipeServices, type RecipeLease } from "../engine/executor/recipe-services.js";
import { WorkerAttempts, type WorkerRunServices } from "../engine/executor/worker-attempts.js";
import type { RunRecipe } from "../executor/executor-protocol.js";
import { costOf, loadPriceTable } from "../llm/pricing.js";
import { RunCalls, type PriceOf } from "../llm/run-calls.js";
import { findTrainer } from "../opt/trainer-catalog.js";
import { onStopSignals } from "../runtime/stop-signals.js";
import type { TaskRegistry } from "../tasks/task-registry.js";
import { redisUrlProblem } from "./executor-flags.js";

export const spec: VerbSpec = {
  name: "worker",
  summary: "Run the jobs that 'trace-bench run --executor bullmq' queues in Redis, on this machine.",
  flags: {
    redis: { type: "string", value: "URL", required: true, description: "The Redis the coordinator queues jobs in, e.g. redis://10.0.0.5:6379." },
    concurrency: { type: "string", value: "N", description: "Jobs this worker runs at once (default 1)." },
    root: ROOT_FLAG,
  },
};

export async function execute(args: ParsedArgs): Promise<number> {
  const url = args.flags.redis as string;
  const problem = redisUrlProblem(url, "--redis");
  if (problem !== null) throw new UsageError({ verb: "worker", problem });
  const rawConcurrency = (args.flags.concurrency as string | undefined) ?? "1";
  const concurrency = Number(rawConcurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError({ verb: "worker", problem: `--concurrency must be a whole number ≥ 1, got '${rawConcurrency}'` });
  const say = (text: string) => void process.stderr.write(`trace-bench worker: ${text}\n`);
  const bullmq = await import("../../adapters/bullmq/bullmq-transport.js");
  try {
    await bullmq.checkRedis(url);
  } catch (error) {
    process.stderr.write(`trace-bench worker: cannot reach Redis at ${url} (${error instanceof Error ? error.message : String(error)}); start redis-server there or fix --redis\n`);
    return 2;
  }
  const root = args.flags.root !== undefined ? { root: args.flags.root as string } : {};
  // A misspelled TRACE_BENCH_TASK_MODULES or sandbox setting stops the worker now, not at its first job.
  (await loadTaskRegistry(root)).close();
  const transport = bullmq.bullmqWorker({ url, say });
  const runs = new RecipeServices<RunRecipe, BuiltRun>({
    // A fresh registry per run: its suites are the run's own (a TRACE_BENCH_TASK_MODULES module that
    // exports a suite object is evaluated again for each: see loadTaskRegistry).
    build: async (recipe) => buildServices(recipe, await loadTaskRegistry(root), url),
    close: (run) => run.close(),
    keepIdle: IDLE_RUNS_KEPT,
  });
  const servicesFor = async (recipe: RunRecipe): Promise<RecipeLease<WorkerRunServices>> => {
    const lease = await runs.acquire(recipe);
    return { services: lease.services.services, release: lease.release };
  };
  let stopped!: (code: number) => void;
  const done = new Promise<number>((resolve) => (stopped = resolve));
  let signals = 0;
  const stop = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    say(`${signal}: cancelling ${attempts.busy} running job(s) (each is recorded cancelled and re-run on resume; tickets not started yet go back to the queue; Ctrl-C again to exit at once)`);
    attempts.cancelAll();
    void transport.close().finally(() => stopped(130));
  };
  // Tests: stop as on SIGTERM right after taking a ticket, before claiming it (a worker stopped while its claim is pending).
  const stopOnTake = process.env[STOP_ON_TAKE] === "1";
  const attempts = new WorkerAttempts({ transport, concurrency, servicesFor, say, ...(stopOnTake ? { onTaken: () => signals === 0 && stop(`SIGTERM (${STOP_ON_TAKE})`) } : {}) });
  const stopListening = onStopSignals(stop);
  try {
    await attempts.start();
    say(`ready: taking jobs from ${url}, ${concurrency} at once (pid ${process.pid})`);
    return await done;
  } finally {
    stopListening();
    runs.closeAll();
  }
}

/** A test hook: the worker stops as on SIGTERM as soon as it took a ticket, before it claims it. */
const STOP_ON_TAKE = "TRACE_BENCH_TEST_WORKER_STOP_ON_TAKE";

/**
 * Idle runs whose services a worker keeps for their next jobs (each has its own task registry and
 * evaluation worker pools); a run beyond them rebuilds its services at its next job.
 */
const IDLE_RUNS_KEPT = 2;

/** A run's services on this worker, and how to stop what they started. */
interface BuiltRun {
  readonly services: WorkerRunServices;
  readonly close: () => void;
}

/**
 * The run's jobs and services on this worker, rebuilt from the coordinator's recipe as `run` plans
 * them, on a task registry of the run's own: its evaluation settings (eval_workers,
 * eval_memory_mb, mode) apply to its jobs only, however many runs the worker serves at once.
 */
async function buildServices(recipe: RunRecipe, registry: TaskRegistry, redisUrl: string): Promise<BuiltRun> {
  try {
    const loaded = resolveRunConfig(parseConfigText(recipe.configPath, recipe.configText));
    const base = plannedConfig(loaded, { maxWorkers: recipe.maxWorkers, ...(recipe.logger !== undefined ? { logger: recipe.logger } : {}) }, recipe.resume as ResumeMode, registry);
    const config = { ...base, run_id: recipe.runId };
    registry.configure({ ...(config.eval_workers !== null ? { workers: config.eval_workers } : {}), memoryMb: config.eval_memory_mb, mode: config.mode });
    // A model's max_concurrency and requests_per_minute hold for the run's workers together.
    const clients = await llmClients(config, process.env, { sharedLimits: { redisUrl, prefix: `trace-bench:llm-limit:${recipe.runId}` } });
    const prices = loadPriceTable(config.pricing);
    const price: PriceOf = config.mode === "stub" ? () => 0 : (model, usage) => costOf(prices, model, usage);
    const calls = new RunCalls({ journaling: config.mode === "real", price, budget: config.budget });
    const jobs = new Map(expandMatrix(base).map((job) => [job.job_id, job]));
    return {
      services: {
        jobs,
        tasks: registry,
        trainers: { find: findTrainer },
        llm: { forJob: clients.forJob, calls, forTask: clients.forTask, forEmbedding: clients.forEmbedding, stubAnswers: clients.stubAnswers },
      },
      close: () => {
        registry.close();
        void clients.close?.().catch(() => {});
      },
    };
  } catch (error) {
    registry.close();
    throw error;
  }
}
