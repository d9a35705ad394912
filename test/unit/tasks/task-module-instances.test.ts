/**
 * A TRACE_BENCH_TASK_MODULES module that default-exports a suite OBJECT: each registry (a BullMQ
 * worker builds one per run it serves) gets its own instance, so one run's `configure` and `close`
 * do not reach another run's suite.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadTaskRegistry } from "../../../adapters/tasks/index.js";

const OBJECT_SUITE = fileURLToPath(new URL("../../fixtures/suites/object-suite.mjs", import.meta.url));
const env = { TRACE_BENCH_TASK_MODULES: OBJECT_SUITE };

describe("task modules exporting a suite object", () => {
  it("give each registry its own suite: one's configure and close leave the other's alone", async () => {
    const first = await loadTaskRegistry({}, env);
    const second = await loadTaskRegistry({}, env);
    first.configure({ workers: 2 });
    second.configure({ workers: 5 });
    first.close();
    const bundle = await second.load("objsuite:state", {});
    expect(bundle.metadata).toMatchObject({ workers: 5 });
    await expect(first.load("objsuite:state", {})).rejects.toThrow(/after close/);
    second.close();
  });
});
