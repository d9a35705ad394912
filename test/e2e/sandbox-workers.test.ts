/**
 * No sandbox worker (node, for trainable JavaScript) outlives its run: finished, interrupted with
 * Ctrl-C, or killed with SIGKILL.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childrenOf, isRunning, until } from "../support/processes.js";
import { CLI, REPO_ROOT, tempDir } from "../support/cli.js";

const workersOf = (pid: number) => childrenOf(pid, "js-sandbox-worker.mjs");

describe("JavaScript sandbox workers", () => {
  for (const how of ["finished", "SIGINT", "SIGKILL"] as const) {
    it(`none outlives a run that is ${how === "finished" ? "finished" : how === "SIGINT" ? "interrupted with Ctrl-C" : "killed with SIGKILL"}`, async () => {
      const dir = tempDir();
      const config = join(dir, "js.yaml");
      const seeds = how === "finished" ? "[1, 2, 3]" : `[${Array.from({ length: 400 }, (_, i) => i + 1).join(", ")}]`;
      writeFileSync(config, `seeds: ${seeds}\ntasks: [trace_examples:train_single_node_stub]\ntrainers: [NoOpTrainer]\n`);
      const child = spawn(process.execPath, [CLI, "run", "--config", config, "--runs-dir", dir, "--run-id", "js"], { cwd: REPO_ROOT, stdio: "ignore" });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const seen = new Set<number>();
      const watching = setInterval(() => workersOf(child.pid!).forEach((p) => seen.add(p)), 10);
      expect(await until(() => seen.size > 0, 20_000)).toBe(true);
      if (how !== "finished") child.kill(how);
      const code = await exited;
      clearInterval(watching);
      if (how === "finished") expect(code).toBe(0);
      if (how === "SIGINT") expect(code).toBe(130);
      expect(await until(() => [...seen].every((pid) => !isRunning(pid)), 5_000), `workers ${[...seen].join(", ")} outlived the run`).toBe(true);
    }, 60_000);
  }
});
