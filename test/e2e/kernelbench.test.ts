/**
 * KernelBench end to end: `list-tasks` lists the shipped problems (or a checkout's, with `--root`),
 * and a run in mode stub has its candidates evaluated by a stand-in of the original's evaluation
 * server on 127.0.0.1, scored by their speed-up over the reference. Without a server the job is
 * skipped saying how to give one; with a server that is down, it fails saying so. The local back
 * end (`backend: local`) on a machine without torch and CUDA skips the job, saying what is missing.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { execResult, kernelEvalStandIns, type SubmittedEvaluation } from "../support/kernel-eval-stand-in.js";
import { csvRows } from "../support/run-dir.js";

const standIn = kernelEvalStandIns();
const STUB = join(REPO_ROOT, "benchmarks", "kernelbench", "stub");
const INLINE_CUDA = readFileSync(join(STUB, "relu.inline_cuda.py"), "utf8");
const CLAMP = readFileSync(join(STUB, "relu.clamp.py"), "utf8");

/** The reference runs in 2 ms, the clamp in 1.6 ms; the inline kernel does not compile on this "GPU". */
const verdict = (request: SubmittedEvaluation) =>
  request.custom_cuda === INLINE_CUDA
    ? { result: execResult({ compiled: false, correctness: false, metadata: { compilation_error: "ninja: build stopped: subcommand failed." } }) }
    : { result: execResult({ compiled: true, correctness: true, runtime: request.custom_cuda === CLAMP ? 1.6 : 2 }) };

/** Whether python3 here can evaluate kernels on a GPU (this machine and CI cannot). */
const cudaHere = spawnSync("python3", ["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"]).status === 0;

const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, TRACE_BENCH_KERNELBENCH_SERVER: "", ...env }, timeoutMs: 120_000 });

function writeConfig(dir: string, evalKwargs: string): string {
  const path = join(dir, "kernel.yaml");
  writeFileSync(path, `mode: stub\nseeds: [1]\ntasks:\n  - id: kernelbench:relu\n    eval_kwargs: ${evalKwargs}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 2}]\n`);
  return path;
}

describe("kernelbench", () => {
  it("list-tasks lists the shipped problems, or a checkout's given as --root", async () => {
    const shipped = await run(["list-tasks", "--bench", "kernelbench"]);
    expect(shipped.code, describeRun("list-tasks", shipped)).toBe(0);
    expect(shipped.stdout.trim().split("\n")).toEqual(["kernelbench:relu", "kernelbench:softmax", "kernelbench:square_matmul"]);
    const root = tempDir();
    mkdirSync(join(root, "KernelBench", "level1"), { recursive: true });
    writeFileSync(join(root, "KernelBench", "level1", "19_ReLU.py"), "class Model: pass\n");
    const fromCheckout = await run(["list-tasks", "--bench", "kernelbench", "--root", root]);
    expect(fromCheckout.stdout.trim().split("\n")).toEqual(["kernelbench:level1_problem19"]);
  });

  it("a stub run's candidates are evaluated by the server and scored by their speed-up over the reference", async () => {
    const dir = tempDir();
    const server = await standIn({ verdict, pollsBeforeDone: 1 });
    const r = await run(["run", "--config", writeConfig(dir, `{server_url: "${server.url}", poll_interval_s: 0.01}`), "--runs-dir", dir, "--run-id", "stub"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const [row] = csvRows(join(dir, "stub", "results.csv"));
    expect(row!.status, row!.feedback).toBe("ok");
    expect(Number(row!.score_val_initial)).toBe(1);
    // Whatever the stub proposed was evaluated by the server, and the best is the best of those.
    const scores = new Map([[CLAMP, 1.25], [INLINE_CUDA, 0]]);
    const proposed = server.submitted.slice(1).map((s) => scores.get(s.custom_cuda) ?? 1);
    expect(server.submitted[0]!.custom_cuda).toMatch(/class ModelNew\(Model\):/);
    expect(proposed.length).toBeGreaterThan(0);
    expect(Number(row!.score_val_final)).toBe(Math.max(1, ...proposed));
    expect(new Set(server.submitted.map((s) => s.custom_cuda)).size).toBe(server.submitted.length);
    expect(server.submitted.every((s) => s.problem_id === 1 && s.level === 1 && s.ref_arch_src.includes("return torch.relu(x)"))).toBe(true);
  });

  it("without a server the job is skipped, saying how to give one; with a server that is down it fails, naming the server", async () => {
    const dir = tempDir();
    const skipped = await run(["run", "--config", writeConfig(dir, "{}"), "--runs-dir", dir, "--run-id", "none"]);
    expect(skipped.code, describeRun("run", skipped)).toBe(0);
    const [none] = csvRows(join(dir, "none", "results.csv"));
    expect(none!.status).toBe("skipped");
    expect(none!.feedback).toContain("needs a KernelBench evaluation server on a GPU machine: set eval_kwargs.server_url (or TRACE_BENCH_KERNELBENCH_SERVER)");

    const server = await standIn({ verdict });
    await server.close();
    const down = await run(["run", "--config", writeConfig(dir, `{server_url: "${server.url}"}`), "--runs-dir", dir, "--run-id", "down"]);
    const [failed] = csvRows(join(dir, "down", "results.csv"));
    expect(failed!.status, describeRun("run", down)).toBe("failed");
    expect(down.code).not.toBe(0);
    expect(failed!.feedback).toContain(`the KernelBench evaluation server at ${server.url} cannot be reached`);
  });

  it.skipIf(cudaHere)("with backend local on a machine without torch and CUDA, the job is skipped saying what is missing", async () => {
    const dir = tempDir();
    const r = await run(["run", "--config", writeConfig(dir, "{backend: local}"), "--runs-dir", dir, "--run-id", "local"]);
    expect(r.code, describeRun("run", r)).toBe(0);
    const [row] = csvRows(join(dir, "local", "results.csv"));
    expect(row!.status).toBe("skipped");
    expect(row!.feedback).toContain("kernelbench:relu with eval_kwargs.backend: local needs python3 with torch, a CUDA device, nvcc and ninja on this machine: ");
    expect(row!.feedback).toContain("or use a KernelBench evaluation server (eval_kwargs.server_url)");
  });
});
