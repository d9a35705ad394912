/**
 * Mistakes with `--executor bullmq` and `worker` get one line naming the flag and the fix, exit 2,
 * and leave no run directory behind.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { freeLoopbackPort } from "../support/redis-server.js";

function config(body = "tasks: [internal:numeric_param]\n"): { path: string; runs: string } {
  const dir = tempDir();
  const path = join(dir, "c.yaml");
  writeFileSync(path, body);
  return { path, runs: join(dir, "runs") };
}

const noRunDir = (runs: string) => !existsSync(runs) || readdirSync(runs).length === 0;

describe("bullmq usage errors", () => {
  it("--executor bullmq without a Redis says how to give one", async () => {
    const c = config();
    const r = await runCli(["run", "--config", c.path, "--runs-dir", c.runs, "--executor", "bullmq"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--executor bullmq needs a Redis: pass --redis redis://HOST:PORT or set executor.redis in the config");
    expect(noRunDir(c.runs)).toBe(true);
  });

  it("a --redis that is not a redis:// URL is named", async () => {
    const c = config();
    const r = await runCli(["run", "--config", c.path, "--runs-dir", c.runs, "--executor", "bullmq", "--redis", "localhost:6379"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--redis takes a redis:// URL");
  });

  it("a Redis nobody listens on is refused before the run dir exists (run and worker)", async () => {
    const url = `redis://127.0.0.1:${await freeLoopbackPort()}`;
    const c = config(`tasks: [internal:numeric_param]\nexecutor: {kind: bullmq, redis: "${url}"}\n`);
    const r = await runCli(["run", "--config", c.path, "--runs-dir", c.runs]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot reach Redis at ${url}`);
    expect(noRunDir(c.runs)).toBe(true);
    const w = await runCli(["worker", "--redis", url]);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain(`cannot reach Redis at ${url}`);
  });

  it("worker --concurrency must be a whole number", async () => {
    const r = await runCli(["worker", "--redis", "redis://127.0.0.1:1", "--concurrency", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--concurrency must be a whole number ≥ 1, got '0'");
  });
});
