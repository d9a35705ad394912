/**
 * The LLM4AD suite (suites.md §1): `llm4ad:<key>` tasks whose trainable parameter is the source
 * of one Python function, evaluated by the task's own Python evaluator in the run's pool of
 * python3 workers, each in a bubblewrap sandbox that forks a fresh child per candidate (see
 * adapters/sandbox/python-sandbox.ts and the worker's header). A bundle is a bare code parameter
 * (the response is the code itself), scored as the reference's AutonomousEvaluatorGuide scores
 * it; instances are built once per bundle.
 */
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { pythonJsonString } from "../../../src/codec/python-json.js";
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import type { JsonValue } from "../../../src/domain/json-value.js";
import { packageRoot } from "../../../src/fs/package-root.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import type { TaskSuite } from "../../../src/tasks/task-suite.js";
import { OnDemandWorkerPool } from "../../sandbox/on-demand-worker-pool.js";
import { WorkerFailure } from "../../sandbox/worker-failure.js";
import { pythonWorkerPool } from "../../sandbox/python-sandbox.js";
import { discoverLlm4adTasks, moduleOf, type Llm4adDiscovery } from "./discovery.js";

export const PENALTY_SCORE = -1_000_000;

/** What the reference appends to a code parameter's description (suites.md §1.6). */
export const BENCH_CONSTRAINTS =
  "\nConstraints (bench-added):\n" +
  "- Do NOT change the function name or its signature.\n" +
  "- Use only the imports provided by the harness; avoid top-level I/O or non-determinism.\n" +
  "- The return value MUST strictly follow the schema described in the docstring/task.";

/** The tasks trace-bench ships, in the original's folder format. */
export const bundledLlm4adRoot = () => join(packageRoot(), "benchmarks", "llm4ad");
const pythonDir = () => join(packageRoot(), "adapters", "tasks", "llm4ad", "python");
/** Where a sandboxed worker sees its code, the tasks root and the CO-Bench data (read-only). */
const INSIDE = { loader: "/trace-bench/loader", tasks: "/trace-bench/tasks", coBench: "/trace-bench/data/co-bench" } as const;

export interface EvaluationSettings {
  /** Workers in the pool (default: the machine's cores). */
  readonly workers: number;
  /** Address-space limit of each worker, MiB (0 = none). */
  readonly memoryMb: number;
}

/** What the worker says about a task it loaded. */
interface LoadedTask {
  readonly entry: string;
  readonly function_signature: string;
  readonly import_header: string;
  readonly task_description: string;
  readonly objective_text: string;
  readonly template_function: string;
  readonly eval_class: string;
  readonly timeout_seconds: number;
  readonly timeout_feedback: string;
  readonly stub_alternatives: readonly string[];
}

interface WorkerError {
  readonly kind: "missing_module" | "missing_file" | "load_error" | "protocol";
  readonly name?: string;
  readonly message: string;
}

/**
 * Eval kwargs trace-bench reads itself (the evaluator never receives them): `feedback_timing`,
 * and the compat switches for upstream bugs (suites.md §1.7), off by default as in the reference:
 * `negate_score` (knapsack_construct and pymoo_moead return the negated objective) and
 * `vector_score: first` (the bi-objective "2O" tasks return a vector, which always fails).
 */
const ENGINE_KWARGS = new Set(["feedback_timing", "negate_score", "vector_score"]);

export class Llm4adSuite implements TaskSuite {
  readonly name = "llm4ad";
  private readonly discovery: Llm4adDiscovery;
  private pool: OnDemandWorkerPool | null = null;
  /** The tasks root as the workers see it (a sandbox shows it at a path of its own). */
  private rootSeenByWorkers = "";
  private settings: EvaluationSettings;

  constructor(root: string, settings: Partial<EvaluationSettings> = {}) {
    // Absolute: the workers run in temporary directories of their own.
    this.discovery = discoverLlm4adTasks(resolve(root));
    this.settings = { workers: settings.workers ?? availableParallelism(), memoryMb: settings.memoryMb ?? 4096 };
  }

  list(): readonly string[] {
    return this.discovery.entries.map((e) => `llm4ad:${e.key}`);
  }

  /** Why `list()` is empty, for `list-tasks` to say. */
  emptyReason(): string | null {
    return this.discovery.problem;
  }

  /** Pool size and limits, from the run's config (before the first bundle is loaded). */
  configure(settings: { readonly workers?: number; readonly memoryMb?: number }): void {
    this.settings = { workers: settings.workers ?? this.settings.workers, memoryMb: settings.memoryMb ?? this.settings.memoryMb };
  }

  /** The pool, started on first use; throws WorkerFailure `unavailable` when python3 or the sandbox cannot run. */
  private workers(): OnDemandWorkerPool {
    if (this.pool !== null) return this.pool;
    const coBench = process.env.CO_BENCH_DATA;
    const { options, sandboxed } = pythonWorkerPool({
      script: (inside) => join(inside ? INSIDE.loader : pythonDir(), "trace_bench_worker.py"),
      scriptArgs: (inside) => ["--loader-dir", inside ? INSIDE.loader : pythonDir(), "--memory-mb", String(this.settings.memoryMb)],
      readOnly: [{ host: pythonDir(), inside: INSIDE.loader }, { host: this.discovery.root, inside: INSIDE.tasks }, ...(coBench ? [{ host: resolve(coBench), inside: INSIDE.coBench }] : [])],
      env: (inside): Record<string, string> => (coBench ? { CO_BENCH_DATA: inside ? INSIDE.coBench : coBench } : {}),
      size: Math.max(1, this.settings.workers),
    });
    this.rootSeenByWorkers = sandboxed ? INSIDE.tasks : this.discovery.root;
    this.pool = new OnDemandWorkerPool(options);
    return this.pool;
  }

  /** Process ids of the evaluation workers alive now (tests check none outlives its run). */
  workerPids(): number[] {
    return this.pool?.pids() ?? [];
  }

  /** Kills the workers: called when the run ends, however it ends. */
  close(): void {
    this.pool?.close();
    this.pool = null;
  }

  knows(taskId: string): boolean {
    return taskId.startsWith("llm4ad:") && moduleOf(this.discovery, taskId.slice("llm4ad:".length)) !== null;
  }

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    const key = taskId.slice("llm4ad:".length);
    const module = moduleOf(this.discovery, key);
    if (module === null) {
      const why = this.discovery.problem ?? `run 'trace-bench list-tasks --bench llm4ad${this.discovery.root === bundledLlm4adRoot() ? "" : ` --root ${this.discovery.root}`}' for the tasks it has`;
      throw new TaskNotFoundError({ taskId, reason: `unknown LLM4AD task '${key}' in ${this.discovery.root}; ${why}` });
    }
    const evaluatorKwargs = Object.fromEntries(Object.entries(evalKwargs).filter(([k]) => !ENGINE_KWARGS.has(k)));
    const instance = randomUUID();
    let pool: OnDemandWorkerPool;
    let task: { root: string; module: string; eval_kwargs: Kwargs };
    let reply: Record<string, unknown>;
    try {
      pool = this.workers();
      task = { root: this.rootSeenByWorkers, module, eval_kwargs: evaluatorKwargs };
      reply = await pool.request({ message: { op: "load", task, instance }, hardTimeoutMs: 600_000, affinity: instance });
    } catch (error) {
      if (error instanceof WorkerFailure && error.kind === "unavailable") throw new TaskUnavailableError({ taskId, reason: `${taskId} cannot be evaluated here: ${error.message}` });
      throw new Error(`${taskId}: the task could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (reply.ok !== true) throw loadFailure(taskId, reply.error as WorkerError);
    const loaded = reply.task as LoadedTask;
    // Off by default: the reference's "OK in 0.42s" makes every prompt differ from run to run
    // (the stub's answers, the journal's matching); `feedback_timing: true` restores its text.
    const feedbackTiming = evalKwargs.feedback_timing === true;
    const code = loaded.template_function.trim();
    return {
      taskId,
      parameters: [{ name: "__code", kind: "code", value: code, description: `The code should start with: ${loaded.function_signature}${BENCH_CONSTRAINTS}`.trim(), trainable: true }],
      // A bare parameter: the response is the candidate's source.
      agent: { name: "__code", run: (_input, values) => values.__code },
      guide: {
        name: "llm4ad_loader.AutonomousEvaluatorGuide",
        evaluate: async (_input, response, _info, context) => {
          try {
            const answer = await pool.request({
              message: {
                op: "evaluate",
                task,
                instance,
                code: String(response),
                feedback_timing: feedbackTiming,
                negate_score: evalKwargs.negate_score === true,
                vector_score: evalKwargs.vector_score === "first" ? "first" : "reference",
              },
              // The worker's own alarm fires at the timeout; this catches code that never returns to Python.
              hardTimeoutMs: (loaded.timeout_seconds + 5) * 1000,
              affinity: instance,
              ...(context.signal ? { signal: context.signal } : {}),
            });
            if (answer.ok !== true) throw new Error((answer.error as WorkerError).message);
            const result = answer.result as { score: number; feedback: string; output: string };
            if (result.output) context.log?.(result.output);
            return { score: result.score, feedback: result.feedback };
          } catch (error) {
            if (!(error instanceof WorkerFailure) || error.kind === "aborted" || error.kind === "closed") throw error;
            if (error.kind === "timeout") return { score: PENALTY_SCORE, feedback: loaded.timeout_feedback };
            // As Python's json.dumps writes it, like every other feedback envelope.
            const env = `{"status": "error", "phase": "evaluate", "error": ${pythonJsonString(error.message)}}`;
            return { score: PENALTY_SCORE, feedback: `TRACE_FEEDBACK_JSON=${env}\nAutonomous eval failed: ${error.message}` };
          }
        },
      },
      train_dataset: { inputs: [loaded.task_description], infos: [{ imports: loaded.import_header, entry: loaded.entry }] },
      optimizer_kwargs: { objective: loaded.objective_text, memory_size: 10 },
      metadata: { entry: loaded.entry, function_signature: loaded.function_signature, eval_class: loaded.eval_class, benchmark: true },
      failureScore: PENALTY_SCORE,
      stubAlternatives: { __code: [code, ...loaded.stub_alternatives] as JsonValue[] },
    };
  }
}

function loadFailure(taskId: string, error: WorkerError): Error {
  switch (error.kind) {
    case "missing_module":
      return new TaskUnavailableError({ taskId, reason: `${taskId} needs the Python module '${error.name ?? "?"}' (pip install it for python3): ${error.message}` });
    case "missing_file":
      return new TaskUnavailableError({ taskId, reason: `${taskId} needs the file ${error.name || "(see message)"}: ${error.message}` });
    default:
      return new Error(`${taskId}: ${error.message}`);
  }
}
