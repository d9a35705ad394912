/**
 * A task id never reaches outside its suite's root: `llm4ad:../x`, an absolute path, a link out of
 * the tasks root and an index.json module that leads out are refused by `run` and `validate` (with
 * or without --strict) with one config-error line naming the task and the root, exit 2, before
 * anything is created or imported; the dashboard's validate-on-edit goes through the same check.
 * Each outside module would write a marker file if Python ever imported it.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { startDashboard, type RunningDashboard } from "../support/dashboard.js";

const BUNDLED_ROOT = join(REPO_ROOT, "benchmarks", "llm4ad");

interface Escapes {
  readonly base: string;
  readonly root: string;
  readonly indexedRoot: string;
  readonly marker: string;
}

/** A tasks root with a link out, an indexed root whose index names an outside module, and the outside module itself. */
function escapes(): Escapes {
  const base = tempDir();
  const marker = join(base, "IMPORTED");
  const evil = join(base, "outside", "evil");
  mkdirSync(evil, { recursive: true });
  writeFileSync(join(evil, "__init__.py"), `open(${JSON.stringify(marker)}, "a").write("imported\\n")\n`);
  const root = join(base, "root");
  mkdirSync(join(root, "inside"), { recursive: true });
  writeFileSync(join(root, "inside", "__init__.py"), "");
  symlinkSync(evil, join(root, "link_out"));
  const indexedRoot = join(base, "indexed");
  mkdirSync(join(indexedRoot, "inside"), { recursive: true });
  writeFileSync(join(indexedRoot, "inside", "__init__.py"), "");
  writeFileSync(join(indexedRoot, "index.json"), JSON.stringify([{ key: "ok", module: "inside" }, { key: "evil", module: "../outside/evil" }]));
  return { base, root, indexedRoot, marker };
}

const config = (tasks: readonly string[]) => `mode: stub\nseeds: [1]\ntasks:\n${tasks.map((t) => `  - ${JSON.stringify(t)}\n`).join("")}trainers:\n  - NoOpTrainer\n`;

describe("task ids stay inside their roots", () => {
  let e: Escapes;
  beforeAll(() => {
    e = escapes();
  });

  const cases = () =>
    [
      // From the bundled root, up and out to the outside module.
      { root: BUNDLED_ROOT, task: `llm4ad:${join("..", "..", "..", "..", "..", "..", "..", "..", e.base, "outside", "evil")}`, why: "the id has a '..' segment" },
      { root: e.root, task: "llm4ad:../outside/evil", why: "the id has a '..' segment" },
      { root: e.root, task: `llm4ad:${join(e.base, "outside", "evil")}`, why: "the id is an absolute path" },
      { root: e.root, task: "llm4ad:link_out", why: `'link_out' resolves to ${join(e.base, "outside", "evil", "__init__.py")}` },
      { root: e.indexedRoot, task: "llm4ad:evil", why: "index.json's module '../outside/evil' has a '..' segment" },
    ] as const;

  for (const verb of [["run"], ["validate", "--strict"], ["validate"]]) {
    it(`${verb.join(" ")} refuses each with one line naming the task and the root, exit 2, creating and importing nothing`, async () => {
      for (const { root, task, why } of cases()) {
        const dir = tempDir();
        writeFileSync(join(dir, "c.yaml"), config(["internal:numeric_param", task]));
        const result = await runCli([...verb, "--config", "c.yaml", "--root", root, "--runs-dir", "runs"], { cwd: dir });
        expect(result.code, `${task}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toBe(`trace-bench: config error: c.yaml:5: task '${task}' is outside the LLM4AD tasks root ${root} (${why}); task ids name folders under the root\n`);
        expect(existsSync(join(dir, "runs")), task).toBe(false);
        expect(existsSync(e.marker), `${task} was imported`).toBe(false);
      }
    }, 120_000);
  }

  it("every suite: a task name with '..' or an absolute path is refused the same way", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "c.yaml"), config(["internal:../numeric_param"]));
    const result = await runCli(["validate", "--config", "c.yaml"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^trace-bench: config error: c\.yaml:4: task 'internal:\.\.\/numeric_param' names a path outside the internal tasks .*\n$/);
  });

  it("list-tasks leaves out what leads outside the root", async () => {
    expect((await runCli(["list-tasks", "--bench", "llm4ad", "--root", e.root])).stdout).toBe("llm4ad:inside\n");
    expect((await runCli(["list-tasks", "--bench", "llm4ad", "--root", e.indexedRoot])).stdout).toBe("llm4ad:ok\n");
  });

  it("escape sequences in a task id are written escaped, never raw to the terminal", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "c.yaml"), `mode: stub\ntasks:\n  - "internal:\\e[2J\\e[31mred\\rX"\ntrainers:\n  - NoOpTrainer\n`);
    const run = await runCli(["run", "--config", "c.yaml", "--runs-dir", "runs"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown task 'internal:\\x1b[2J\\x1b[31mred\\x0dX'");
    const validate = await runCli(["validate", "--config", "c.yaml"], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain("[FAIL] internal:\\x1b[2J\\x1b[31mred\\x0dX: unknown task");
    for (const out of [run.stdout, run.stderr, validate.stdout, validate.stderr]) expect(out).not.toMatch(/[\x1b\r]/);
  });
});

describe("the dashboard's validate-on-edit never imports a task from outside the tasks root", () => {
  let e: Escapes;
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    e = escapes();
    dashboard = await startDashboard({ cwd: e.base, args: ["--runs-dir", "runs", "--tasks-root", e.root] });
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
  });

  it("answers with the refusal; the outside __init__.py never ran", async () => {
    for (const task of ["llm4ad:../outside/evil", "llm4ad:link_out", `llm4ad:${join(e.base, "outside", "evil")}`]) {
      const reply = await dashboard.request("/api/config/validate", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ path: "configs/edited.yaml", text: config([task]) }),
      });
      expect(reply.status, reply.body).toBe(200);
      const report = JSON.parse(reply.body) as { ok: boolean; exit_code: number; messages: string[] };
      expect(report.ok).toBe(false);
      expect(report.exit_code).toBe(2);
      expect(report.messages).toEqual([expect.stringMatching(new RegExp(`^configs/edited\\.yaml:4: task '${task.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}' is outside the LLM4AD tasks root ${e.root} `))]);
      expect(existsSync(e.marker), `${task} was imported`).toBe(false);
    }
  }, 120_000);
});
