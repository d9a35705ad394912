/**
 * KernelBench (`kernelbench:*`): the trainable parameter is the source of `ModelNew`, a drop-in
 * replacement for a reference PyTorch `Model`, usually with inline CUDA kernels; a candidate scores
 * its speed-up over the reference when it compiles and is correct (kernel-score.ts).
 *
 * Candidates are never evaluated in this process: `eval_kwargs.backend` chooses a KernelBench
 * evaluation server (`server`, the default: the original's protocol, on a GPU box,
 * kernel-eval-server.ts) or this machine's GPU (`local`: a python3 worker, kernel-local-eval.ts).
 * Without a server, or without torch and CUDA for `local`, the jobs are skipped, saying what is
 * missing. Evaluations are cached by (back end, candidate, reference, settings) for the run: the
 * optimizer re-scoring a candidate costs no GPU time, and a candidate's score does not drift with
 * timing noise between two evaluations of the same source.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Kwargs } from "../../../src/config/kwargs.js";
import type { JsonValue } from "../../../src/domain/json-value.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { TaskNotFoundError, TaskUnavailableError } from "../../../src/tasks/task-errors.js";
import type { TaskSuite } from "../../../src/tasks/task-suite.js";
import { KernelEvalServer, type KernelEvaluation } from "./kernel-eval-server.js";
import { defaultKernelCacheDir, KernelLocalEvaluator, probeLocalKernelEval, type LocalEvaluationSettings, type LocalProbe } from "./kernel-local-eval.js";
import { discoverKernelProblems, type KernelProblem, type KernelProblemListing } from "./kernel-problems.js";
import { KERNEL_FAILURE_SCORE, kernelVerdict } from "./kernel-score.js";

export const KERNEL_SERVER_VARIABLE = "TRACE_BENCH_KERNELBENCH_SERVER";
const PARAMETER = "model_new_src";
const DEFAULT_TIMEOUT_S = 300;

const OBJECTIVE =
  "Rewrite ModelNew so that it computes exactly what the reference Model computes (same constructor arguments, same forward inputs and outputs) in less time, " +
  "using custom CUDA kernels (torch.utils.cpp_extension.load_inline) where they help. The score is the speed-up over the reference; a candidate that does not compile or whose output differs scores 0.";

const DESCRIPTION =
  "A complete Python module defining `class ModelNew(nn.Module)`, a drop-in replacement for the reference `Model`. " +
  "It may compile CUDA kernels with torch.utils.cpp_extension.load_inline.";

/** The starting candidate: the reference itself, which compiles, is correct and sets the reference runtime. */
export function referenceCandidate(reference: string): string {
  return `${reference.trimEnd()}\n\n\nclass ModelNew(Model):\n    """The reference itself: replace with custom CUDA kernels to make it faster."""\n\n    pass\n`;
}

function problemStatement(problem: KernelProblem, reference: string): string {
  return `Write ModelNew, a faster drop-in replacement for the PyTorch model '${problem.name}' below.\n\n\`\`\`python\n${reference.trimEnd()}\n\`\`\``;
}

function positiveNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new Error(`eval_kwargs.${name} must be a positive number of seconds, got ${JSON.stringify(value)}; write e.g. ${name}: ${fallback}`);
  return value;
}

function wholeNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new Error(`eval_kwargs.${name} must be a whole number of at least 1, got ${JSON.stringify(value)}; write e.g. ${name}: ${fallback}`);
  return value;
}

function tolerance(name: string, value: unknown): number {
  if (value === undefined || value === null) return 1e-2;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new Error(`eval_kwargs.${name} must be a number of at least 0, got ${JSON.stringify(value)}; write e.g. ${name}: 0.01`);
  return value;
}

type Backend = "server" | "local";

function backendOf(evalKwargs: Kwargs): Backend {
  const given = evalKwargs.backend;
  if (given === undefined || given === null || given === "server") return "server";
  if (given === "local") return "local";
  throw new Error(`eval_kwargs.backend must be 'server' (an evaluation server, eval_kwargs.server_url) or 'local' (this machine's GPU), got ${JSON.stringify(given)}`);
}

/** The local back end's settings (KernelBench's defaults: 5 correctness trials, 100 timed, atol = rtol = 0.01). */
function localSettings(evalKwargs: Kwargs, timeoutS: number): LocalEvaluationSettings {
  const device = evalKwargs.device ?? "cuda:0";
  if (typeof device !== "string" || !/^cuda(:\d+)?$/.test(device)) throw new Error(`eval_kwargs.device must be a CUDA device such as cuda:0, got ${JSON.stringify(device)}`);
  return {
    numCorrectTrials: wholeNumber("num_correct_trials", evalKwargs.num_correct_trials, 5),
    numPerfTrials: wholeNumber("num_perf_trials", evalKwargs.num_perf_trials, 100),
    atol: tolerance("atol", evalKwargs.atol),
    rtol: tolerance("rtol", evalKwargs.rtol),
    device,
    timeoutS,
  };
}

function cacheDirOf(evalKwargs: Kwargs, env: NodeJS.ProcessEnv): string {
  const given = evalKwargs.build_cache_dir;
  if (given === undefined || given === null) return defaultKernelCacheDir(env);
  if (typeof given !== "string" || given === "") throw new Error(`eval_kwargs.build_cache_dir must be a folder, got ${JSON.stringify(given)}`);
  return given;
}

/** The reference's runtime when the evaluation measured it beside the candidate's (the local back end does). */
function referenceMeasuredWith(evaluation: KernelEvaluation): number | null {
  if (evaluation.status !== "completed") return null;
  const measured = evaluation.result.metadata.reference_runtime;
  return typeof measured === "number" && Number.isFinite(measured) && measured > 0 ? measured : null;
}

function serverUrlOf(taskId: string, evalKwargs: Kwargs, env: NodeJS.ProcessEnv): string {
  const given = evalKwargs.server_url ?? env[KERNEL_SERVER_VARIABLE];
  if (given === undefined || given === null || given === "") {
    throw new TaskUnavailableError({
      taskId,
      reason: `${taskId} needs a KernelBench evaluation server on a GPU machine: set eval_kwargs.server_url (or ${KERNEL_SERVER_VARIABLE}) to the URL of a server speaking the original's cuda_eval_server protocol, or set eval_kwargs.backend: local to evaluate on this machine's GPU`,
    });
  }
  if (typeof given !== "string" || !/^https?:\/\/[^\s/]+/.test(given)) throw new Error(`eval_kwargs.server_url must be an http(s) URL such as http://gpu-box:6000, got ${JSON.stringify(given)}`);
  return given;
}

/** Stub mode's other candidates for a shipped problem: `benchmarks/kernelbench/stub/<name>.<variant>.py`. */
function stubCandidates(listing: KernelProblemListing, problem: KernelProblem): string[] {
  if (listing.fromCheckout) return [];
  const folder = join(listing.folder, "stub");
  let files: string[];
  try {
    files = readdirSync(folder);
  } catch {
    return [];
  }
  return files
    .filter((file) => file.startsWith(`${problem.name}.`) && file.endsWith(".py"))
    .sort()
    .map((file) => readFileSync(join(folder, file), "utf8"));
}

/** What the local back end needs of this machine: python3's answer, and a worker evaluating on its GPU. */
export interface LocalBackEnd {
  probe(env: NodeJS.ProcessEnv): Promise<LocalProbe>;
  evaluator(cacheDir: string, env: NodeJS.ProcessEnv): Pick<KernelLocalEvaluator, "evaluate" | "close">;
}

const thisMachine: LocalBackEnd = {
  probe: (env) => probeLocalKernelEval(env),
  evaluator: (cacheDir, env) => new KernelLocalEvaluator(cacheDir, env),
};

export class KernelBenchSuite implements TaskSuite {
  readonly name = "kernelbench";
  private listing: KernelProblemListing | null = null;
  /** Evaluations of this run, by server, candidate and reference. */
  private readonly evaluations = new Map<string, { readonly evaluation: Promise<KernelEvaluation>; readonly signal: AbortSignal | undefined }>();
  /** The local back end's worker, shared by every job of the run (one GPU), by build cache folder. */
  private readonly localEvaluators = new Map<string, Pick<KernelLocalEvaluator, "evaluate" | "close">>();

  constructor(
    private readonly root: string | undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly local: LocalBackEnd = thisMachine,
  ) {}

  private problems(): KernelProblemListing {
    this.listing ??= discoverKernelProblems(this.root);
    return this.listing;
  }

  private problemOf(taskId: string): KernelProblem | undefined {
    return this.problems().problems.find((problem) => problem.taskId === taskId);
  }

  list(): readonly string[] {
    return this.problems().problems.map((problem) => problem.taskId);
  }

  knows(taskId: string): boolean {
    return this.problemOf(taskId) !== undefined;
  }

  emptyReason(): string | null {
    const listing = this.problems();
    return listing.problems.length > 0 ? null : `no KernelBench problems in ${listing.folder} (a checkout has KernelBench/level1/<N>_<Name>.py files)`;
  }

  /**
   * The evaluation of `key` by the back end `scope` (a server's URL, or the local GPU), shared by
   * every job of the run that asks for it. A shared evaluation stopped by another job's signal is
   * asked for again, not taken as this job's stop.
   */
  private async evaluate(scope: string, key: string, signal: AbortSignal | undefined, run: () => Promise<KernelEvaluation>): Promise<KernelEvaluation> {
    const cacheKey = createHash("sha256").update(scope).update("\0").update(key).digest("hex");
    for (;;) {
      let entry = this.evaluations.get(cacheKey);
      if (entry === undefined) {
        entry = { evaluation: run(), signal };
        this.evaluations.set(cacheKey, entry);
        // A server that failed or a job that was stopped is asked again next time.
        entry.evaluation.catch(() => this.evaluations.delete(cacheKey));
      }
      try {
        return await entry.evaluation;
      } catch (error) {
        const stoppedByAnotherJob = entry.signal !== signal && entry.signal?.aborted === true && signal?.aborted !== true;
        if (!stoppedByAnotherJob) throw error;
      }
    }
  }

  /** Stops the local back end's worker (and the evaluation it runs). */
  close(): void {
    for (const evaluator of this.localEvaluators.values()) evaluator.close();
    this.localEvaluators.clear();
  }

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    const listing = this.problems();
    const problem = this.problemOf(taskId);
    if (problem === undefined) {
      const where = listing.fromCheckout ? `the KernelBench checkout ${listing.folder}` : "the problems shipped with trace-bench";
      throw new TaskNotFoundError({ taskId, reason: `unknown KernelBench task '${taskId}' in ${where}; run 'trace-bench list-tasks --bench kernelbench' for the tasks it has` });
    }
    const backend = backendOf(evalKwargs);
    const timeoutS = positiveNumber("timeout", evalKwargs.timeout, DEFAULT_TIMEOUT_S);
    const reference = readFileSync(problem.file, "utf8");
    const initial = referenceCandidate(reference);
    let scope: string;
    let run: (candidate: string, signal: AbortSignal | undefined) => Promise<KernelEvaluation>;
    if (backend === "server") {
      const server = new KernelEvalServer(serverUrlOf(taskId, evalKwargs, this.env), {
        pollIntervalMs: positiveNumber("poll_interval_s", evalKwargs.poll_interval_s, 1) * 1000,
        waitLimitMs: positiveNumber("wait_limit_s", evalKwargs.wait_limit_s, 900) * 1000,
      });
      // A server that is down fails the job here, in one line: during training its evaluations
      // would only be errors with no score.
      await server.check();
      let samples = 0;
      scope = server.url;
      run = (candidate, signal) => server.evaluate({ problemId: problem.problemId, sampleId: samples++, customCuda: candidate, refArchSrc: reference, level: problem.level, timeoutS }, signal);
    } else {
      const settings = localSettings(evalKwargs, timeoutS);
      const cacheDir = cacheDirOf(evalKwargs, this.env);
      const probe = await this.local.probe(this.env);
      if (probe.problem !== null) {
        throw new TaskUnavailableError({ taskId, reason: `${taskId} with eval_kwargs.backend: local needs python3 with torch, a CUDA device, nvcc and ninja on this machine: ${probe.problem}; or use a KernelBench evaluation server (eval_kwargs.server_url)` });
      }
      let evaluator = this.localEvaluators.get(cacheDir);
      if (evaluator === undefined) {
        evaluator = this.local.evaluator(cacheDir, this.env);
        this.localEvaluators.set(cacheDir, evaluator);
      }
      const local = evaluator;
      scope = `local\0${JSON.stringify(settings)}`;
      run = (candidate, signal) => local.evaluate(candidate, reference, settings, signal);
    }
    const evaluate = (candidate: string, signal: AbortSignal | undefined) => this.evaluate(scope, `${candidate}\0${reference}\0${problem.level}\0${timeoutS}`, signal, () => run(candidate, signal));
    /** The reference's runtime: the starting candidate's, measured by the same back end the same way. */
    const referenceMs = async (signal: AbortSignal | undefined): Promise<number | null> => {
      const evaluation = await evaluate(initial, signal);
      return evaluation.status === "completed" && evaluation.result.correctness && evaluation.result.runtime > 0 ? evaluation.result.runtime : null;
    };

    return {
      taskId,
      parameters: [{ name: PARAMETER, kind: "code", value: initial, description: DESCRIPTION, trainable: true }],
      // A bare parameter: the response is the candidate's source.
      agent: { name: "kernelbench.ModelNew", run: (_input, values) => values[PARAMETER] },
      guide: {
        name: "kernelbench.SpeedupGuide",
        evaluate: async (_input, response, _info, context) => {
          const evaluation = await evaluate(String(response), context.signal);
          // Only a correct candidate is compared with the reference; the local back end timed both together.
          const correct = evaluation.status === "completed" && evaluation.result.compiled && evaluation.result.correctness;
          return kernelVerdict(evaluation, correct ? (referenceMeasuredWith(evaluation) ?? (await referenceMs(context.signal))) : null);
        },
      },
      train_dataset: { inputs: [problemStatement(problem, reference)], infos: [{ problem: problem.name, level: problem.level, problem_id: problem.problemId }] },
      optimizer_kwargs: { objective: OBJECTIVE, memory_size: 10 },
      metadata: { benchmark: "kernelbench", problem: problem.name, level: problem.level, problem_id: problem.problemId, eval_timeout_s: timeoutS, eval_backend: backend },
      failureScore: KERNEL_FAILURE_SCORE,
      stubAlternatives: { [PARAMETER]: [initial, ...stubCandidates(listing, problem)] as JsonValue[] },
    };
  }
}
