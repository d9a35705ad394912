import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";
import { framesOf, HAVE_PYTHON_PTY, runInPty, screenOf, SGR_PATTERN } from "../support/terminal.js";

// Eight jobs: ok with a long float score (multi_param x PrioritySearch: -0.06499999999999995), a
// failed one, two skipped, LLM tokens (PrioritySearch on the stub), and two slow jobs so the live
// line has jobs running.
const MATRIX = `seeds: [1]
max_workers: 2
tasks:
  - internal:multi_param
  - fixture:flaky
  - fixture:unavailable
  - {id: fixture:sleep, eval_kwargs: {delay_ms: 200}}
trainers:
  - NoOpTrainer
  - {id: PrioritySearch, params_variants: [{ps_steps: 1, ps_batches: 1}]}
`;

function matrixConfig(dir: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, MATRIX);
  return path;
}

const RESULT_LINE = /^\[(\d)\/8\] (ok|failed|skipped) [0-9a-f]{12} \S+ x \S+(?: \[[^\]]+\])? \(seed=1\) score_val=\S+ \d+\.\d\ds/;

async function ptyRun(extraEnv: NodeJS.ProcessEnv, columns = 200) {
  const dir = tempDir();
  const cfg = matrixConfig(dir);
  const env = { ...process.env, ...FIXTURE_ENV, TERM: "xterm-256color", NO_COLOR: "", ...extraEnv };
  const result = await runInPty([process.execPath, CLI, "run", "--config", cfg, "--runs-dir", dir], { cwd: REPO_ROOT, env, columns });
  return { ...result, dir };
}

describe.skipIf(!HAVE_PYTHON_PTY)("run on a terminal (a real pty)", () => {
  it("result lines scroll above a live status line that is redrawn in place and cleared at the end", async () => {
    const { code, raw, dir } = await ptyRun({});
    expect(code).toBe(1); // one job failed
    expect(raw).toContain("\r\x1b[2K");

    // What the terminal shows at the end: every result line whole (none overwritten by the live
    // line), then the summary; the live line is gone.
    const screen = screenOf(raw);
    const results = screen.lines.filter((l) => l.startsWith("["));
    expect(results).toHaveLength(8);
    for (const line of results) expect(line).toMatch(RESULT_LINE);
    expect(results.map((l) => Number(RESULT_LINE.exec(l)![1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(screen.lines.some((l) => / done, \d+ failed, \d+ running/.test(l))).toBe(false);
    expect(screen.current).toBe("");
    const firstSummary = screen.lines.findIndex((l) => l.startsWith("Jobs: "));
    expect(firstSummary).toBe(screen.lines.findIndex((l) => l.startsWith("[8/8]")) + 1);
    expect(screen.lines.at(-2)).toMatch(/^LLM: \d+ calls, \d+ tokens/);
    expect(screen.lines.at(-1)).toMatch(/^Mode stub: /);

    // Rounded for people on the console, full precision in the files.
    expect(results.find((l) => l.includes("internal:multi_param x PrioritySearch"))).toContain("score_val=-0.731 ");
    const row = csvRows(join(singleRunDir(dir), "results.csv")).find((r) => r.task_id === "internal:multi_param" && r.trainer_id === "PrioritySearch");
    expect(row!.score_val).toBe("-0.7309999999999999");
    // A failed or skipped job says why, on its one line.
    expect(results.find((l) => l.includes(" failed "))).toMatch(/ — training_error: \(Error\) flaky agent failed on call 2$/);
    expect(results.filter((l) => l.includes(" skipped ")).every((l) => l.endsWith(" — fixture tool is not installed on this machine"))).toBe(true);

    // The live line: done / failed / running of the total, elapsed, ETA, then tokens and cost once the LLM was called.
    const status = framesOf(raw).filter((f) => /^\d\/8 done/.test(f));
    expect(status.length).toBeGreaterThan(0);
    for (const frame of status) expect(frame).toMatch(/^\d\/8 done, [01] failed, [0-2] running \| \d+s elapsed, ETA (\?|\d+s)( \| \d+ tokens, \$\d+\.\d{4})?$/);
    expect(status.some((f) => / [12] running /.test(f))).toBe(true);
    expect(status.some((f) => / \d+ tokens, \$0\.0000$/.test(f))).toBe(true);
    expect(status.at(-1)).toMatch(/^8\/8 done, 1 failed, 0 running \| \d+s elapsed, ETA 0s \| \d+ tokens, \$0\.0000$/);

    // Colour on a terminal: the status word.
    expect(raw).toContain("\x1b[32mok\x1b[39m");
    expect(raw).toContain("\x1b[31mfailed\x1b[39m");
  });

  it("honours NO_COLOR: no colour codes, the live line still works", async () => {
    const { code, raw } = await ptyRun({ NO_COLOR: "1" });
    expect(code).toBe(1);
    expect(raw.match(SGR_PATTERN)).toBeNull();
    expect(raw).toContain("\r\x1b[2K");
    expect(screenOf(raw).lines.filter((l) => RESULT_LINE.test(l))).toHaveLength(8);
  });

  it("cuts the live line to the terminal's width, so it can be redrawn in place", async () => {
    const { raw } = await ptyRun({}, 40);
    const status = framesOf(raw).filter((f) => /^\d\/8 done/.test(f));
    expect(status.length).toBeGreaterThan(0);
    for (const frame of status) expect(frame.length).toBeLessThanOrEqual(39);
    expect(screenOf(raw).lines.filter((l) => RESULT_LINE.test(l))).toHaveLength(8);
  });
});

describe("run piped (not a terminal)", () => {
  it("prints one plain line per job, scores rounded and reasons on the line, and no escape sequence", async () => {
    const dir = tempDir();
    const r = await runCli(["run", "--config", matrixConfig(dir), "--runs-dir", dir], { env: { ...FIXTURE_ENV, NO_COLOR: "" } });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("\x1b");
    expect(r.stdout).not.toContain("\r");
    const lines = r.stdout.split("\n");
    const results = lines.filter((l) => l.startsWith("["));
    expect(results).toHaveLength(8);
    for (const line of results) expect(line).toMatch(RESULT_LINE);
    expect(lines.some((l) => / running /.test(l))).toBe(false);
    expect(results.find((l) => l.includes("internal:multi_param x PrioritySearch"))).toContain("score_val=-0.731 ");
    expect(results.find((l) => l.includes(" failed "))).toMatch(/ — training_error: \(Error\) flaky agent failed on call 2$/);
    expect(results.filter((l) => l.includes(" skipped "))).toHaveLength(2);
    expect(results.filter((l) => l.includes(" skipped ")).every((l) => l.endsWith(" — fixture tool is not installed on this machine"))).toBe(true);
    expect(lines[8]).toMatch(/^Jobs: 5 ok, 1 failed, 2 skipped /);
  });
});
