/**
 * The original's 15 hf configs (test/fixtures/hf/configs: same tasks, trainers, params and seeds)
 * expand, as `validate --strict` and `run` expand them, to the original's job ids in matrix order
 * (computed with python3's json.dumps(sort_keys=True) + sha256 as the original does), and every hf
 * task they name loads or is skipped for want of data, never fails. In process: the CLI's printing
 * of the ids is test/e2e/hf-suite.test.ts's, for one config.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTaskRegistry } from "../../../adapters/tasks/index.js";
import { toPlain } from "../../../src/config/kwargs.js";
import { expandMatrix } from "../../../src/config/matrix.js";
import { loadRunConfig } from "../../../src/config/run-config.js";
import type { TaskRegistry } from "../../../src/tasks/task-registry.js";

const fixtures = join("test", "fixtures", "hf");
const originalIds = JSON.parse(readFileSync(join(fixtures, "original-job-ids.json"), "utf8")) as Record<string, string[]>;
const configs = readdirSync(join(fixtures, "configs")).sort();

let dir: string;
let registry: TaskRegistry;
const savedEnv = { ...process.env };
beforeAll(async () => {
  // No user's data: an empty hub cache and no data directory (this file has its own process).
  dir = mkdtempSync(join(tmpdir(), "hf-config-ids-"));
  Object.assign(process.env, { HF_HUB_CACHE: join(dir, "empty-hub"), HF_HOME: join(dir, "empty-home"), TRACE_BENCH_HF_DATA_DIR: "" });
  registry = await loadTaskRegistry();
});
afterAll(() => {
  registry.close();
  process.env = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

/** The config's tasks as validate and run expand them (a suite name stands for its tasks). */
function loaded(name: string) {
  const { config } = loadRunConfig(join(fixtures, "configs", name));
  registry.configure({ mode: config.mode });
  return { ...config, tasks: registry.expandTasks(config.tasks) };
}

describe("the original's hf configs", () => {
  it("are the 15 configs whose ids the original computed", () => {
    expect(configs).toEqual(Object.keys(originalIds).sort());
  });

  it("expand to the original's 49 job ids, in matrix order", () => {
    let total = 0;
    for (const name of configs) {
      const ids = expandMatrix(loaded(name)).map((job) => job.job_id);
      expect(ids, name).toEqual(originalIds[name]);
      total += ids.length;
    }
    expect(total).toBe(49);
  });

  it("name hf tasks that are known and load or are skipped for want of data, never fail", async () => {
    const outcomes = new Set<string>();
    for (const name of configs) {
      for (const task of loaded(name).tasks.filter((t) => t.id.startsWith("hf:"))) {
        expect(registry.unknownTask(task.id), `${name}: ${task.id}`).toBeNull();
        const outcome = await registry.load(task.id, toPlain(task.eval_kwargs)).then(
          () => "ok",
          (error: { _tag?: string; message?: string }) => (error._tag === "TaskUnavailableError" ? "skipped" : `failed: ${error.message}`),
        );
        expect(["ok", "skipped"], `${name}: ${task.id}: ${outcome}`).toContain(outcome);
        outcomes.add(outcome);
      }
    }
    // Without data every hf task is skipped: a load that found data here would not be this check.
    expect([...outcomes]).toEqual(["skipped"]);
  });
});
