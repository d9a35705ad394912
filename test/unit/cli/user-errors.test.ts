/**
 * The CLI edge's user-error union: each member becomes its one line (a config error: one line per
 * problem) and exit 2, escape sequences echoed from a config are neutralised, and anything outside
 * the union (a bug, a look-alike tag) is left for main to report as an internal error.
 */
import { describe, expect, it } from "vitest";
import { userErrorExit } from "../../../src/cli/user-errors.js";
import { UsageError } from "../../../src/cli/args.js";
import { RunQueryError } from "../../../src/cli/run-log.js";
import { ConfigError } from "../../../src/config/config-error.js";
import { RunDirError } from "../../../src/engine/run-dir-error.js";
import { EventLogCorruptError, EventLogLostError, EventLogWriteError, LogRepairError, RunLockedError } from "../../../src/events/event-log-errors.js";
import { BenchSelectorError, TaskModuleError, TaskNotFoundError } from "../../../src/tasks/task-errors.js";
import { SandboxSettingError } from "../../../adapters/sandbox/sandbox-mode.js";

describe("userErrorExit", () => {
  const members = [
    new UsageError({ verb: "run", problem: "--config is required" }),
    new BenchSelectorError({ unknown: ["nope"], allowed: ["internal"] }),
    new RunDirError({ problem: "runs/x is not a run directory" }),
    new RunLockedError({ runDir: "runs/x", pid: 1, host: "elsewhere", startedAt: "2026-01-01T00:00:00Z", command: "trace-bench run" }),
    new EventLogWriteError({ path: "runs/x/events.db", code: "SQLITE_FULL", problem: "the disk is full" }),
    new EventLogCorruptError({ path: "runs/x/events.db", problem: "not a database" }),
    new EventLogLostError({ runDir: "runs/x" }),
    new LogRepairError({ runDir: "runs/x", problem: "no mirror" }),
    new RunQueryError({ problem: "no run matches" }),
    new SandboxSettingError({ value: "maybe" }),
    new TaskModuleError({ path: "suite.mjs", problem: "no default export" }),
    new TaskNotFoundError({ taskId: "internal:nope", reason: "no such task" }),
  ];

  for (const error of members) {
    it(`${error._tag}: its message, prefixed, and exit 2`, () => {
      expect(userErrorExit(error)).toEqual({ lines: [`trace-bench: ${error.message}`], exitCode: 2 });
    });
  }

  it("a config error: one line per problem, escape sequences neutralised", () => {
    const exit = userErrorExit(new ConfigError({ problems: ["tasks[0]: unknown task 'a\u001b[31m'", "seeds: must be a list"] }));
    expect(exit?.exitCode).toBe(2);
    expect(exit?.lines).toHaveLength(2);
    expect(exit?.lines[0]).toMatch(/^trace-bench: config error: tasks\[0\]: unknown task 'a/);
    expect(exit?.lines.join("\n")).not.toContain("\u001b");
    expect(exit?.lines[1]).toBe("trace-bench: config error: seeds: must be a list");
  });

  it("anything else is not the user's to fix: a plain error, a tag outside the union, a non-error", () => {
    expect(userErrorExit(new TypeError("x is undefined"))).toBeUndefined();
    expect(userErrorExit(Object.assign(new Error("typed but internal"), { _tag: "JobNotRecorded" }))).toBeUndefined();
    expect(userErrorExit(Object.assign(new Error("inherited"), { _tag: "toString" }))).toBeUndefined();
    expect(userErrorExit("a string")).toBeUndefined();
    expect(userErrorExit(null)).toBeUndefined();
  });
});
