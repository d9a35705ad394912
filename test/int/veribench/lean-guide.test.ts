/**
 * The Lean compiler guide against a stand-in `lean` (and `lake`) first on PATH
 * (test/fixtures/lean/): the candidate compiled in a temporary Lake project in a child process,
 * 1.0 without errors (warnings allowed), 0.0 with Lean's errors and the code around them, a
 * misplaced import removed and the code checked again, the time limit and the job's cancellation
 * killing the compiler with what it started, no secrets in its environment, and a toolchain
 * that is missing or cannot run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leanCompilerGuide } from "../../../adapters/tasks/veribench/lean-guide.js";
import { findLeanToolchain } from "../../../adapters/tasks/veribench/lean-toolchain.js";
import { REPO_ROOT } from "../../support/cli.js";

const LEAN_BIN = join(REPO_ROOT, "test", "fixtures", "lean", "bin");
const LAKE_BIN = join(REPO_ROOT, "test", "fixtures", "lean", "lake-bin");
const SYSTEM_PATH = process.env.PATH ?? "";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "veribench-lean-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const envWith = (first: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: `${first}${delimiter}${SYSTEM_PATH}`, HOME: dir, ...extra });

function guideFor(env: NodeJS.ProcessEnv, timeoutSeconds = 60) {
  const toolchain = findLeanToolchain(env);
  if (toolchain === null) throw new Error("the stand-in toolchain was not found on PATH");
  return leanCompilerGuide(toolchain, timeoutSeconds, env);
}

const evaluate = (env: NodeJS.ProcessEnv, code: string, options: { timeoutSeconds?: number; signal?: AbortSignal } = {}) =>
  Promise.resolve(guideFor(env, options.timeoutSeconds).evaluate("query", code, {}, options.signal ? { signal: options.signal } : {}));

/** Whether a process is gone, polled (the kill is asynchronous), never by a fixed sleep. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

async function pidFrom(file: string): Promise<number> {
  for (let i = 0; i < 400 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
  return Number(readFileSync(file, "utf8"));
}

const GOOD = "def double (n : Nat) : Nat := 2 * n\n\ntheorem double_zero : double 0 = 0 := by rfl\n";

describe("the Lean compiler guide (stand-in lean on PATH)", () => {
  it("finds lean first, else lake (run as `lake env lean`), else nothing", () => {
    expect(findLeanToolchain(envWith(LEAN_BIN))).toMatchObject({ command: join(LEAN_BIN, "lean"), args: [] });
    expect(findLeanToolchain({ PATH: LAKE_BIN })).toMatchObject({ command: join(LAKE_BIN, "lake"), args: ["env", "lean"] });
    expect(findLeanToolchain({ PATH: join(dir, "empty") })).toBeNull();
  });

  it("code that compiles scores 1.0; a sorry is a warning, not an error", async () => {
    expect(await evaluate(envWith(LEAN_BIN), GOOD)).toEqual({ score: 1, feedback: "Lean compilation succeeded: no errors." });
    expect((await evaluate(envWith(LEAN_BIN), "theorem hard : 1 = 1 := by\n  sorry\n")).score).toBe(1);
  });

  it("errors score 0.0, with each message (all its lines) and the declaration it is in, numbered", async () => {
    const code = ["def double (n : Nat) : Nat := 2 * n", "", "theorem wrong : (2 + 2 = 5) := rfl", "", "def uses (n : Nat) : Nat :=", "  unknown_fn n", "", "theorem fine : double 0 = 0 := by rfl"].join("\n");
    const result = await evaluate(envWith(LEAN_BIN), code);
    expect(result.score).toBe(0);
    expect(result.feedback).toBe(
      [
        "Lean compilation FAILED with 2 error(s). Fix every error; the code must compile.",
        "",
        "Error 1 at line 3, column 31:\ntype mismatch\n  rfl\nhas type\n  2 + 2 = 2 + 2 : Prop\nbut is expected to have type\n  2 + 2 = 5 : Prop\nIn this code:\n3 | theorem wrong : (2 + 2 = 5) := rfl",
        "",
        "Error 2 at line 6, column 2:\nunknown identifier 'unknown_fn'\nIn this code:\n5 | def uses (n : Nat) : Nat :=\n6 |   unknown_fn n",
      ].join("\n"),
    );
  });

  it("an import after other commands is deleted and the code checked again, which decides the score", async () => {
    const code = `import Init\n${GOOD}\nimport Std.Data\n`;
    expect(await evaluate(envWith(LEAN_BIN), code)).toEqual({ score: 1, feedback: "Lean compilation succeeded: no errors.\n(1 misplaced import line(s) were removed before this check.)" });
    const stillWrong = await evaluate(envWith(LEAN_BIN), `${GOOD}import Std.Data\ndef bad := unknown_fn\n`);
    expect(stillWrong.score).toBe(0);
    expect(stillWrong.feedback).toContain("unknown identifier 'unknown_fn'");
    expect(stillWrong.feedback).toContain("(1 misplaced import line(s) were removed before this check.)");
  });

  it("through `lake env lean` when only lake is on PATH", async () => {
    expect((await evaluate(envWith(LAKE_BIN), GOOD)).score).toBe(1);
    expect((await evaluate(envWith(LAKE_BIN), "def f := unknown_fn\n")).score).toBe(0);
  });

  it("the compiler never sees the engine's secrets", async () => {
    const env = envWith(LEAN_BIN, { OPENAI_API_KEY: "sk-should-not-leak", MY_SERVICE_TOKEN: "t0k3n" });
    expect(await evaluate(env, GOOD)).toEqual({ score: 1, feedback: "Lean compilation succeeded: no errors." });
  });

  it("past the time limit the compiler and what it started are killed: 0.0 with a timeout message", async () => {
    const pidFile = join(dir, "sleeper.pid");
    const result = await evaluate(envWith(LEAN_BIN), `${GOOD}-- stand-in: hang ${pidFile}\n`, { timeoutSeconds: 2 });
    expect(result).toEqual({ score: 0, feedback: expect.stringMatching(/^Lean compilation did not finish within 2 s \(TimeoutError\)/) });
    // On a busy machine the limit may pass before the stand-in started its child: then nothing is
    // left to kill (the cancellation test below waits for the child before it cancels).
    if (existsSync(pidFile)) expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("the job's cancellation kills the compiler and rejects with the job's reason", async () => {
    const pidFile = join(dir, "sleeper.pid");
    const controller = new AbortController();
    const pending = evaluate(envWith(LEAN_BIN), `-- stand-in: hang ${pidFile}\n`, { signal: controller.signal });
    const sleeper = await pidFrom(pidFile);
    controller.abort(new Error("job cancelled"));
    await expect(pending).rejects.toThrow("job cancelled");
    expect(await gone(sleeper)).toBe(true);
  });

  it("a compiler that exits non-zero without a message scores 0.0 and says so; one that cannot start is an error", async () => {
    const crashed = await evaluate(envWith(LEAN_BIN), "-- stand-in: crash\n");
    expect(crashed.score).toBe(0);
    expect(crashed.feedback).toContain("the Lean compiler exited with 134 and no error message: INTERNAL PANIC: out of memory");
    const vanished = leanCompilerGuide({ command: join(dir, "no-such-lean"), args: [], label: "lean (gone)" }, 60, envWith(LEAN_BIN));
    await expect(Promise.resolve(vanished.evaluate("q", GOOD, {}, {}))).rejects.toThrow(/^cannot run lean \(gone\): spawn .*ENOENT/);
  });
});
