/**
 * A built-in task's trainable op: its author's own source runs in the engine (as trusted as the
 * task module), any other source (a proposal) in a sandboxed isolate, with the same results.
 */
import { afterAll, describe, expect, it } from "vitest";
import { JsSandbox } from "../../../adapters/sandbox/js-sandbox.js";
import { sandboxRunner } from "../../../adapters/tasks/internal/sandbox-runner.js";

const sandbox = new JsSandbox({ heapMb: 64 });
afterAll(() => sandbox.close());

/** Which side ran it: the engine has a `process`, a sandbox context has none. */
const WHERE = `function emit(value) {
  return [typeof process === "undefined" ? "sandbox" : "engine", value * 2];
}`;

describe("internal tasks' code runner", () => {
  const run = sandboxRunner(sandbox, WHERE);

  it("runs the task's own source in the engine and returns plain data, as the sandbox does", async () => {
    expect(await run(WHERE, [1.5], {})).toEqual(["engine", 3]);
  });

  it("runs any other source in the sandbox, even one that differs only in spacing", async () => {
    expect(await run(`${WHERE}\n`, [1.5], {})).toEqual(["sandbox", 3]);
    expect(await run(`function emit(value) { return typeof process; }`, [0], {})).toBe("undefined");
  });

  it("gives the sandbox's answer for values the sandbox turns into null", async () => {
    const own = `function emit() { return undefined; }`;
    const runner = sandboxRunner(sandbox, own);
    expect(await runner(own, [], {})).toBeNull();
    expect(await runner(`${own} `, [], {})).toBeNull();
  });
});
