/**
 * KernelBench's local back end: candidates evaluated on this machine's GPU by a python3 worker
 * (python/kernel_eval_worker.py), each in a fresh `local_eval.py` process under a time limit, with
 * the same result as the evaluation server (`compiled, correctness, metadata, runtime,
 * runtime_stats`), so kernel-score.ts scores both back ends alike.
 *
 * Whether this machine can evaluate at all (python3 with torch, a CUDA device, nvcc and ninja for
 * load_inline) is asked of python3 once per process; where it cannot, the jobs are skipped with
 * that reason.
 *
 * The worker runs UNCONFINED (said once on stderr): the bubblewrap sandbox of the other python
 * workers shows no GPU, no CUDA driver, and no compiler outside /usr, and its scratch space is
 * wiped after every request, while a build must outlive its worker. Choosing `backend: local` is the
 * user's opt-in to running LLM-written kernels as this user.
 */
import { execFile } from "node:child_process";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../../src/fs/package-root.js";
import { OnDemandWorkerPool } from "../../sandbox/on-demand-worker-pool.js";
import { pythonRuntime } from "../../sandbox/python-runtime.js";
import { candidateEnv } from "../../sandbox/sandbox-env.js";
import { WorkerFailure } from "../../sandbox/worker-failure.js";
import { execResultOf, isRecord, type KernelEvaluation } from "./kernel-eval-server.js";

export const KERNEL_CACHE_VARIABLE = "TRACE_BENCH_KERNELBENCH_CACHE";

/** Variables the GPU evaluation needs from the engine's environment (where CUDA and the compilers are); no other is passed. */
const CUDA_VARIABLES = ["CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH", "TORCH_CUDA_ARCH_LIST", "MAX_JOBS", "CC", "CXX", "NVCC_CCBIN", "NVIDIA_VISIBLE_DEVICES", "VIRTUAL_ENV", "CONDA_PREFIX"] as const;

export interface LocalEvaluationSettings {
  readonly numCorrectTrials: number;
  readonly numPerfTrials: number;
  readonly atol: number;
  readonly rtol: number;
  /** The CUDA device, e.g. `cuda:0`. */
  readonly device: string;
  /** The limit for one evaluation (its compile included), seconds. */
  readonly timeoutS: number;
}

/** Where builds are kept by source hash: `$TRACE_BENCH_KERNELBENCH_CACHE`, else the user's cache folder. */
export function defaultKernelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[KERNEL_CACHE_VARIABLE];
  if (given !== undefined && given !== "") return given;
  const cacheHome = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(cacheHome, "trace-bench", "kernelbench-builds");
}

/** The worker's environment: the sandbox's allowlist plus where CUDA and the compilers are. */
export function localEvalEnv(parent: NodeJS.ProcessEnv, importPath: readonly string[]): Record<string, string> {
  const cuda: Record<string, string> = {};
  for (const name of CUDA_VARIABLES) {
    const value = parent[name];
    if (value !== undefined && value !== "") cuda[name] = value;
  }
  return candidateEnv(parent, { scratch: tmpdir(), path: parent.PATH ?? "/usr/local/bin:/usr/bin:/bin", extra: { ...cuda, PYTHONPATH: importPath.join(":") } });
}

const PROBE = [
  "import json",
  "try:",
  "    import torch",
  "    from torch.utils.cpp_extension import CUDA_HOME, is_ninja_available",
  "except Exception as exc:",
  "    print(json.dumps({'problem': f'python3 cannot import torch ({type(exc).__name__}: {exc})'})); raise SystemExit",
  "if not torch.cuda.is_available():",
  "    print(json.dumps({'problem': f'torch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False)'}))",
  "elif CUDA_HOME is None:",
  "    print(json.dumps({'problem': 'torch finds no CUDA toolkit (nvcc): set CUDA_HOME'}))",
  "elif not is_ninja_available():",
  "    print(json.dumps({'problem': 'ninja, which load_inline builds with, is not installed (pip install ninja)'}))",
  "else:",
  "    print(json.dumps({'problem': None, 'device': torch.cuda.get_device_name(0), 'torch': torch.__version__}))",
].join("\n");

/** Null when this machine can evaluate kernels locally, else why not (one line). */
export type LocalProbe = { readonly problem: string } | { readonly problem: null; readonly device: string; readonly torch: string };

const probed = new Map<string, Promise<LocalProbe>>();

/** Asks python3 once per process and search path (importing torch takes seconds: never on the event loop). */
export function probeLocalKernelEval(env: NodeJS.ProcessEnv = process.env): Promise<LocalProbe> {
  const key = `${env.PATH ?? ""}\0${env.PYTHONPATH ?? ""}\0${env.CUDA_HOME ?? ""}`;
  const known = probed.get(key);
  if (known !== undefined) return known;
  const probe = new Promise<LocalProbe>((resolve) => {
    let importPath: readonly string[];
    try {
      importPath = pythonRuntime().importPath;
    } catch (error) {
      resolve({ problem: (error as Error).message });
      return;
    }
    execFile(pythonRuntime().executable, ["-c", PROBE], { env: localEvalEnv(env, importPath), timeout: 180_000, encoding: "utf8" }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").at(-1) ?? "";
      try {
        const answer = JSON.parse(line) as { problem: string | null; device?: string; torch?: string };
        resolve(answer.problem === null ? { problem: null, device: answer.device ?? "?", torch: answer.torch ?? "?" } : { problem: answer.problem });
      } catch {
        resolve({ problem: `python3 could not be asked whether torch sees a CUDA device (${error?.message ?? (stderr.trim().split("\n").at(-1) || "no answer")})` });
      }
    });
  });
  probed.set(key, probe);
  return probe;
}

let warned = false;

function warnUnconfined(write: (text: string) => void = (text) => process.stderr.write(text)): void {
  if (warned) return;
  warned = true;
  write(
    "WARNING: KernelBench's local back end (eval_kwargs.backend: local) runs candidate kernels UNCONFINED, as this user, on this machine's GPU: " +
      "the bubblewrap sandbox shows no GPU or CUDA driver and keeps no build cache. Use it on a machine meant for it, or use an evaluation server (backend: server).\n",
  );
}

/** Seconds the engine waits beyond the worker's own limit before killing the worker (it answers first). */
const WORKER_GRACE_S = 60;

export class KernelLocalEvaluator {
  private pool: OnDemandWorkerPool | null = null;

  constructor(
    readonly cacheDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly onStderr?: (text: string) => void,
  ) {}

  private workers(): OnDemandWorkerPool {
    if (this.pool === null) {
      warnUnconfined();
      const python = pythonRuntime();
      const folder = join(packageRoot(), "adapters", "tasks", "kernelbench", "python");
      const shared = join(packageRoot(), "adapters", "tasks", "llm4ad", "python");
      // One worker: the machine's GPU is one, and two evaluations at once would time each other.
      this.pool = new OnDemandWorkerPool({
        command: python.executable,
        args: (dir) => [join(folder, "kernel_eval_worker.py"), "--shared-dir", shared, "--cache-dir", this.cacheDir, "--scratch", join(dir, "scratch")],
        size: 1,
        env: localEvalEnv(this.env, python.importPath),
        ...(this.onStderr ? { onStderr: this.onStderr } : {}),
      });
    }
    return this.pool;
  }

  /** The verdict on `customCuda` against `refArchSrc`; a worker that cannot run throws WorkerFailure. */
  async evaluate(customCuda: string, refArchSrc: string, settings: LocalEvaluationSettings, signal?: AbortSignal): Promise<KernelEvaluation> {
    const message = {
      op: "evaluate",
      timeout: settings.timeoutS,
      request: {
        custom_cuda: customCuda,
        ref_arch_src: refArchSrc,
        num_correct_trials: settings.numCorrectTrials,
        num_perf_trials: settings.numPerfTrials,
        atol: settings.atol,
        rtol: settings.rtol,
        device: settings.device,
      },
    };
    let reply: Record<string, unknown>;
    try {
      reply = await this.workers().request({ message, hardTimeoutMs: (settings.timeoutS + WORKER_GRACE_S) * 1000, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof WorkerFailure && error.kind === "timeout") return { status: "failed", error: `the local evaluation worker gave no answer within ${settings.timeoutS + WORKER_GRACE_S} s and was killed`, device: settings.device };
      throw error;
    }
    if (reply.ok !== true) {
      const reason = isRecord(reply.error) && typeof reply.error.message === "string" ? reply.error.message : "no reason given";
      throw new Error(`KernelBench's local evaluation worker refused the request: ${reason}`);
    }
    const result = execResultOf(reply.result);
    if (result === null) throw new Error(`KernelBench's local evaluation worker answered without a result of the expected shape: ${JSON.stringify(reply.result).slice(0, 200)}`);
    return { status: "completed", result, device: settings.device };
  }

  /** Kills the worker (and the evaluation it runs). */
  close(): void {
    this.pool?.close();
    this.pool = null;
  }
}
