import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EventReader } from "../../src/events/event-reader.js";
import { runCli, tempDir } from "../support/cli.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";

const JOB = "806f391306ae";
let runDir = "";

/** A copy of the smoke run to change files in (results.csv, summary.json; the log is untouched). */
function copyOfRun(): string {
  const copy = join(tempDir(), "run");
  cpSync(runDir, copy, { recursive: true });
  return copy;
}

beforeAll(async () => {
  const runs = tempDir();
  const r = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", runs]);
  expect(r.code, r.stderr).toBe(0);
  runDir = singleRunDir(runs);
});

describe("trace-bench tokens", () => {
  it("on a stub run: reconciles, and its totals equal the sum of results.csv total_tokens", async () => {
    const r = await runCli(["tokens", runDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("reconciled: events, results.csv and summary.json agree");
    const rows = csvRows(join(runDir, "results.csv"));
    const total = rows.reduce((sum, row) => sum + Number(row.total_tokens), 0);
    expect(total).toBeGreaterThan(0);
    // The totals line: 4 completed calls, nothing replayed, failed, aborted or lost; then prompt, completion, cached, total.
    const totals = r.stdout.split("\n").find((line) => line.startsWith("total "))!.trim().split(/\s+/);
    expect(totals.slice(1, 6)).toEqual(["4", "0", "0", "0", "0"]);
    expect(Number(totals[9])).toBe(total);
    expect(r.stdout).toContain("tokens are estimated (stub LLM)");

    const json = JSON.parse((await runCli(["tokens", runDir, "--json", "--by", "model"])).stdout) as {
      by: string;
      groups: { key: string; calls: { completed: number } }[];
      totals: { billed: { total_tokens: number }; cost_usd: number | null };
      reconciliation: { reconciled: boolean; mismatches: unknown[] };
    };
    expect(json.by).toBe("model");
    expect(json.groups.map((g) => [g.key, g.calls.completed])).toEqual([["stub", 4]]);
    expect(json.totals.billed.total_tokens).toBe(total);
    expect(json.totals.cost_usd).toBe(0); // the stub is free
    expect(json.reconciliation).toEqual({ results_csv: "checked", summary_json: "checked", mismatches: [], reconciled: true, every_token_known: true });
  });

  it("a doctored results.csv: exit 1, naming the file, job, column and both values", async () => {
    const copy = copyOfRun();
    const path = join(copy, "results.csv");
    const total = Number(csvRows(path)[0]!.total_tokens);
    writeFileSync(path, readFileSync(path, "utf8").replace(`,${total},`, `,${total + 1},`));
    const r = await runCli(["tokens", copy]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`mismatch: results.csv job ${JOB} total_tokens: events ${total}, file ${total + 1}`);
    expect(r.stdout).toContain("not reconciled: 1 mismatch(es)");
    // The command it names works as printed (started from the clone, not from PATH).
    expect(r.stdout).toContain(`'npx trace-bench replay ${copy}' rebuilds the files`);
  });

  it("a missing summary.json is said, not an error; results.csv is still checked", async () => {
    const copy = copyOfRun();
    rmSync(join(copy, "summary.json"));
    const r = await runCli(["tokens", copy]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("summary.json: not written yet");
    expect(r.stdout).toContain("reconciled: events and results.csv agree");
  });

  it("a directory without a log: one line, exit 2", async () => {
    const r = await runCli(["tokens", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has no event log \(events\.db\)/);
  });
});

describe("trace-bench calls", () => {
  it("--job prints each call with its prompt messages and reply, from the content table", async () => {
    const r = await runCli(["calls", runDir, "--job", JOB]);
    expect(r.code, r.stderr).toBe(0);
    const headers = r.stdout.split("\n").filter((l) => l.startsWith("=== "));
    expect(headers).toHaveLength(4);
    expect(headers[0]).toMatch(new RegExp(`^=== job ${JOB} attempt 1 call 1 \\(event \\d+\\): optimizer stub: completed, \\d+\\+\\d+=\\d+ tokens \\(estimated\\), \\d+ ms, \\$0\\.0000$`));
    expect(r.stdout.match(/^--- prompt \[system\]$/gm)).toHaveLength(4);
    expect(r.stdout.match(/^--- reply$/gm)).toHaveLength(4);
    expect(r.stdout).not.toContain("(not stored)");

    // The replies shown are the stored texts.
    const json = JSON.parse((await runCli(["calls", runDir, "--job", JOB, "--json"])).stdout) as { calls: { reply: string; messages: { text: string | null }[] }[] };
    expect(json.calls).toHaveLength(4);
    expect(json.calls.every((c) => c.messages.length > 0 && c.messages.every((m) => m.text !== null && m.text.length > 0))).toBe(true);
    const reader = EventReader.open(runDir);
    try {
      const refs = reader.readAfter(0).flatMap((e) => (e.type === "LlmCallCompleted" && e.data.reply_ref !== undefined ? [e.data.reply_ref] : []));
      const stored = reader.contents(refs);
      expect(json.calls.map((c) => c.reply)).toEqual(refs.map((ref) => stored.get(ref)));
      expect(r.stdout).toContain(stored.get(refs[0]!)!.split("\n")[0]);
    } finally {
      reader.close();
    }
  });

  it("--step 1 selects the calls up to the first IterationCompleted; a step the job lacks is one line, exit 2", async () => {
    const step = await runCli(["calls", runDir, "--job", JOB, "--step", "1"]);
    expect(step.code).toBe(0);
    expect(step.stdout.split("\n").filter((l) => l.startsWith("=== "))).toHaveLength(4);
    const none = await runCli(["calls", runDir, "--job", JOB, "--step", "9"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`trace-bench: job ${JOB} has no step 9 (steps: 1)\n`);
  });

  it("an unknown job id: one line naming it and how to list the jobs, exit 2", async () => {
    const r = await runCli(["calls", runDir, "--job", "nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("unknown job 'nope'");
    expect(r.stderr).toContain(`trace-bench tokens ${runDir}`);
  });
});
