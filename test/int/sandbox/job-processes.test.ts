/**
 * Which process evaluates a candidate: the LLM4AD worker's template forks one child per job, which
 * evaluates that job's candidates one after another; a candidate of another job, or a candidate
 * that left a thread or a process running, ends that child, and the next candidate starts from a
 * fresh one forked from the template. Each candidate below scores minus the pid of its process.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Llm4adSuite } from "../../../adapters/tasks/llm4ad/llm4ad-suite.js";
import type { TaskBundle } from "../../../src/domain/task-bundle.js";
import { REPO_ROOT } from "../../support/cli.js";

const INDEXED = join(REPO_ROOT, "test", "fixtures", "llm4ad", "indexed");
// One worker: every job below goes through the same template.
const suite = new Llm4adSuite(INDEXED, { workers: 1, memoryMb: 1024 });
afterAll(() => suite.close());

/** toy/double scores -sum |f(x) - 2x| over x = 0..9: off by the pid at x = 0 only. */
const reportsPid = (before = "") => `import os\n${before}\nPID = os.getpid()\ndef f(x):\n    return 2 * x + (PID if x == 0 else 0)\n`;

async function pidOf(bundle: TaskBundle, code = reportsPid()): Promise<number> {
  const { score, feedback } = await bundle.guide.evaluate(bundle.train_dataset.inputs[0], code, bundle.train_dataset.infos[0], {});
  expect(score, feedback).toBeLessThan(0);
  return -score;
}

describe("the processes that evaluate a job's candidates", () => {
  it("a job's candidates share its process; another job's candidate ends it, and each job then starts from a fresh one", async () => {
    const a = await suite.load("llm4ad:toy/double", {});
    const b = await suite.load("llm4ad:toy/double", {});
    const a1 = await pidOf(a);
    expect(await pidOf(a)).toBe(a1);
    const b1 = await pidOf(b);
    expect(b1).not.toBe(a1);
    expect(await pidOf(b)).toBe(b1);
    const a3 = await pidOf(a);
    expect([a1, b1]).not.toContain(a3);
  }, 60_000);

  it("a candidate that leaves a thread running, or a process, is the last one its process evaluates", async () => {
    const job = await suite.load("llm4ad:toy/double", {});
    const first = await pidOf(job);
    expect(await pidOf(job, reportsPid("import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()"))).toBe(first);
    const second = await pidOf(job);
    expect(second).not.toBe(first);
    expect(await pidOf(job, reportsPid('import subprocess\nsubprocess.Popen(["sleep", "30"])'))).toBe(second);
    const third = await pidOf(job);
    expect([first, second]).not.toContain(third);
    expect(await pidOf(job)).toBe(third);
  }, 60_000);
});
