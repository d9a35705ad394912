/**
 * KernelBench (`kernelbench:*`): the trainable parameter is the source of `ModelNew`, a drop-in
 * replacement for a reference PyTorch `Model`, usually with inline CUDA kernels; a candidate scores
 * its speed-up over the reference when it compiles and is correct (kernel-score.ts).
 *
 * Candidates are evaluated by a KernelBench evaluation server (the original's protocol, on a GPU
 * box: kernel-eval-server.ts), never in this process. Without one the jobs are skipped, saying how
 * to give one. Evaluations are cached by (server, candidate, reference) for the run: the optimizer
 * re-scoring a candidate costs no GPU time, and a candidate's score does not drift with timing
 * noise between two evaluations of the same source.
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

function serverUrlOf(taskId: string, evalKwargs: Kwargs, env: NodeJS.ProcessEnv): string {
  const given = evalKwargs.server_url ?? env[KERNEL_SERVER_VARIABLE];
  if (given === undefined || given === null || given === "") {
    throw new TaskUnavailableError({
      taskId,
      reason: `${taskId} needs a KernelBench evaluation server on a GPU machine: set eval_kwargs.server_url (or ${KERNEL_SERVER_VARIABLE}) to the URL of a server speaking the original's cuda_eval_server protocol`,
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

export class KernelBenchSuite implements TaskSuite {
  readonly name = "kernelbench";
  private listing: KernelProblemListing | null = null;
  /** Evaluations of this run, by server, candidate and reference. */
  private readonly evaluations = new Map<string, { readonly evaluation: Promise<KernelEvaluation>; readonly signal: AbortSignal | undefined }>();

  constructor(
    private readonly root: string | undefined,
    private readonly env: NodeJS.ProcessEnv = process.env,
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
   * The evaluation of `key` by `server`, shared by every job of the run that asks for it. A shared
   * evaluation stopped by another job's signal is asked for again, not taken as this job's stop.
   */
  private async evaluate(server: KernelEvalServer, key: string, signal: AbortSignal | undefined, run: () => Promise<KernelEvaluation>): Promise<KernelEvaluation> {
    const cacheKey = createHash("sha256").update(server.url).update("\0").update(key).digest("hex");
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

  async load(taskId: string, evalKwargs: Kwargs): Promise<TaskBundle> {
    const listing = this.problems();
    const problem = this.problemOf(taskId);
    if (problem === undefined) {
      const where = listing.fromCheckout ? `the KernelBench checkout ${listing.folder}` : "the problems shipped with trace-bench";
      throw new TaskNotFoundError({ taskId, reason: `unknown KernelBench task '${taskId}' in ${where}; run 'trace-bench list-tasks --bench kernelbench' for the tasks it has` });
    }
    const server = new KernelEvalServer(serverUrlOf(taskId, evalKwargs, this.env), {
      pollIntervalMs: positiveNumber("poll_interval_s", evalKwargs.poll_interval_s, 1) * 1000,
      waitLimitMs: positiveNumber("wait_limit_s", evalKwargs.wait_limit_s, 900) * 1000,
    });
    const timeoutS = positiveNumber("timeout", evalKwargs.timeout, DEFAULT_TIMEOUT_S);
    // A server that is down fails the job here, in one line: during training its evaluations
    // would only be errors with no score.
    await server.check();
    const reference = readFileSync(problem.file, "utf8");
    const initial = referenceCandidate(reference);
    let samples = 0;
    const evaluate = (candidate: string, signal: AbortSignal | undefined) =>
      this.evaluate(server, `${candidate}\0${reference}\0${problem.level}\0${timeoutS}`, signal, () =>
        server.evaluate({ problemId: problem.problemId, sampleId: samples++, customCuda: candidate, refArchSrc: reference, level: problem.level, timeoutS }, signal),
      );
    /** The reference's runtime: the starting candidate's, measured by the same server the same way. */
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
          return kernelVerdict(evaluation, await referenceMs(context.signal));
        },
      },
      train_dataset: { inputs: [problemStatement(problem, reference)], infos: [{ problem: problem.name, level: problem.level, problem_id: problem.problemId }] },
      optimizer_kwargs: { objective: OBJECTIVE, memory_size: 10 },
      metadata: { benchmark: "kernelbench", problem: problem.name, level: problem.level, problem_id: problem.problemId, eval_timeout_s: timeoutS },
      failureScore: KERNEL_FAILURE_SCORE,
      stubAlternatives: { [PARAMETER]: [initial, ...stubCandidates(listing, problem)] as JsonValue[] },
    };
  }
}
