/**
 * The JavaScript sandbox against real node workers under the permission model: what an LLM's
 * proposal could try (the constructor escape, require, process.binding, writing files, reading the
 * environment) fails, ordinary code works, and limits stop loops and allocation bombs.
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CodeExecutionError, JsSandbox } from "../../../adapters/sandbox/js-sandbox.js";
import { isRunning, until } from "../../support/processes.js";

const sandboxes: JsSandbox[] = [];
afterEach(() => {
  for (const s of sandboxes.splice(0)) s.close();
});
function sandbox(): JsSandbox {
  const s = new JsSandbox({ workers: 1, heapMb: 64 });
  sandboxes.push(s);
  return s;
}

const PROCESS = `this.constructor.constructor("return process")()`;
const gone = (pids: readonly number[]) => until(() => !pids.some(isRunning), 3000, 100);

describe("the JavaScript sandbox", () => {
  it("runs ordinary candidate code and returns plain data", async () => {
    const js = sandbox();
    expect(await js.run("(greeting, query) => greeting + ', ' + query.split(' ').at(-1) + '!'", ["Hello", "I am Sam"])).toBe("Hello, Sam!");
    expect(await js.run("(v) => ({ doubled: v * 2, list: [v] })", [3])).toEqual({ doubled: 6, list: [3] });
    await expect(js.run("(x) => {", [1])).rejects.toThrow(/SyntaxError/);
    await expect(js.run("() => { throw new Error('boom') }", [])).rejects.toThrow(new CodeExecutionError("Error: boom"));
  });

  it("the constructor escape reaches a process with no environment: the API key is not there", async () => {
    process.env.TRACE_BENCH_SANDBOX_TEST_API_KEY = "sk-must-not-leak";
    try {
      const js = sandbox();
      expect(await js.run(`() => ${PROCESS}.env.TRACE_BENCH_SANDBOX_TEST_API_KEY ?? null`, [])).toBeNull();
      expect(await js.run(`() => Object.keys(${PROCESS}.env)`, [])).toEqual([]);
    } finally {
      delete process.env.TRACE_BENCH_SANDBOX_TEST_API_KEY;
    }
  });

  it("require, process.binding, reading files, writing outside its directory and child processes all fail", async () => {
    const js = sandbox();
    await expect(js.run(`() => require("fs")`, [])).rejects.toThrow(/require is not defined/);
    await expect(js.run(`() => typeof ${PROCESS}.binding("fs")`, [])).rejects.toThrow(CodeExecutionError);
    await expect(js.run(`() => ${PROCESS}.getBuiltinModule("fs").readFileSync("/etc/passwd", "utf8")`, [])).rejects.toThrow(/Access to this API has been restricted/);
    const outside = join(tmpdir(), `trace-bench-escape-${process.pid}.txt`);
    await expect(js.run(`() => ${PROCESS}.getBuiltinModule("fs").writeFileSync(${JSON.stringify(outside)}, "x")`, [])).rejects.toThrow(/Access to this API has been restricted/);
    expect(existsSync(outside)).toBe(false);
    await expect(js.run(`() => ${PROCESS}.getBuiltinModule("child_process").execSync("id").toString()`, [])).rejects.toThrow(/Access to this API has been restricted/);
    // Its own working directory is writable (scratch space), and nothing else.
    expect(await js.run(`() => { ${PROCESS}.getBuiltinModule("fs").writeFileSync("scratch.txt", "ok"); return "written" }`, [])).toBe("written");
  });

  it("an infinite loop is stopped at the time limit; an allocation bomb kills its worker, which is replaced", async () => {
    const js = sandbox();
    await expect(js.run("() => { for (;;) {} }", [], { timeoutMs: 100 })).rejects.toThrow(/timed out after 100ms/);
    expect(await js.run("(x) => x + 1", [1])).toBe(2);
    const [before] = js.workerPids();
    await expect(js.run("() => { const a = []; for (;;) a.push(new Array(1e6).fill(1)) }", [], { timeoutMs: 20_000 })).rejects.toThrow(CodeExecutionError);
    expect(await gone([before!])).toBe(true);
    expect(await js.run("(x) => x + 1", [41])).toBe(42);
    expect(js.workerPids()).not.toContain(before);
  }, 40_000);

  it("an aborted call kills its worker; close() leaves no worker", async () => {
    const js = sandbox();
    const controller = new AbortController();
    const running = js.run("() => { for (;;) {} }", [], { timeoutMs: 30_000, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pids = js.workerPids();
    controller.abort(new Error("cancelled"));
    await expect(running).rejects.toThrow();
    expect(await gone(pids)).toBe(true);
    await js.run("() => 1", []);
    const live = js.workerPids();
    js.close();
    expect(await gone(live)).toBe(true);
  });
});
