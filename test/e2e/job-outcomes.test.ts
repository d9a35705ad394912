/**
 * Statuses that mean something, and every candidate on record: LLM4AD tasks whose initial programs
 * score the failure value (as the original's circle_packing, online_bin_packing_2O and
 * feynman_srsd do) end `no_valid_candidate`, rank nowhere and make the run exit 1; the stub, with
 * nothing to offer for them, says it did no search; and each job's candidates, with their parents
 * and scores, are in the log and shown by `trace-bench candidates`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir, type CliResult } from "../support/cli.js";
import { csvRows, eventsOf, singleRunDir } from "../support/run-dir.js";

const FAILING = join(REPO_ROOT, "test", "fixtures", "llm4ad", "failing");
const ORIGINAL_LIKE = ["llm4ad:circle_packing", "llm4ad:online_bin_packing_2O", "llm4ad:feynman_srsd"];

let run: CliResult;
let runDir: string;
const rows = () => csvRows(join(runDir, "results.csv"));
const jobOf = (task: string) => rows().find((r) => r.task_id === task)!.job_id!;

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, "c.yaml");
  const tasks = [...ORIGINAL_LIKE, "llm4ad:repairable"];
  writeFileSync(config, `tasks: [${tasks.join(", ")}]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1, ps_batches: 1}]\nseeds: [1]\n`);
  run = await runCli(["run", "--config", config, "--runs-dir", dir, "--root", FAILING]);
  runDir = singleRunDir(dir);
}, 120_000);

describe("jobs with no valid candidate", () => {
  it("end no_valid_candidate (not ok) with the reason, stay off the leaderboard, are counted, and the run exits 1", () => {
    expect(run.code, run.stderr).toBe(1);
    const byTask = new Map(rows().map((r) => [r.task_id, r]));
    for (const task of ORIGINAL_LIKE) {
      const row = byTask.get(task)!;
      expect(row.status, task).toBe("no_valid_candidate");
      expect(row.score_val).toBe("-1000000.0");
      expect(row.feedback).toMatch(/^no_valid_candidate: the initial and the final candidate both scored the task's failure value -1000000\.0; final evaluation: TRACE_FEEDBACK_JSON=/);
    }
    // The task whose template fails too, but whose stub alternative is valid: the search found it.
    expect(byTask.get("llm4ad:repairable")!.status).toBe("ok");
    const leaderboard = csvRows(join(runDir, "leaderboard.csv"));
    expect(leaderboard.map((r) => r.task_id)).toEqual(["llm4ad:repairable"]);
    const summary = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8")) as { counts: Record<string, number>; outcomes: Record<string, unknown> };
    expect(summary.counts).toMatchObject({ ok: 1, no_valid_candidate: 3 });
    expect(summary.outcomes).toEqual({ scored: 4, improved: 1, no_valid_candidate: 3, no_search: ORIGINAL_LIKE.map(jobOf) });
  });

  it("each job line and the closing lines say which jobs did no search (the stub had nothing to propose) and how many improved", () => {
    for (const task of ORIGINAL_LIKE) {
      const line = run.stdout.split("\n").find((l) => l.includes(` ${task} x `))!;
      expect(line).toMatch(/^\[\d\/4\] no_valid_candidate /);
      expect(line).toContain("(no search: the optimizer never proposed a change)");
    }
    expect(run.stdout.split("\n").find((l) => l.includes(" llm4ad:repairable x "))).not.toContain("no search");
    expect(run.stdout).toContain("Jobs: 3 no_valid_candidate, 1 ok (4 in the matrix, 4 run now)");
    expect(run.stdout).toContain(
      "Outcomes: 1 of 4 scored jobs improved on their initial score; 3 no_valid_candidate (every candidate kept failed to evaluate: the task's failure value or no score; not ranked); 3 jobs did no search (the optimizer never proposed a change; the stub LLM has no alternative to offer for their parameters and answers TERMINATE)",
    );
  });

  it("the job's JobFinished records no_search only for the jobs that did none", () => {
    const finished = eventsOf(runDir).filter((e) => e.type === "JobFinished");
    const noSearch = finished.filter((e) => e.data.no_search === true).map((e) => e.job_id);
    expect(noSearch.sort()).toEqual(ORIGINAL_LIKE.map(jobOf).sort());
    expect(finished.find((e) => e.job_id === jobOf("llm4ad:repairable"))!.data).not.toHaveProperty("no_search");
  });
});

describe("every candidate on record", () => {
  it("each training evaluation is a CandidateEvaluated event with its candidate, parents, iteration, split and score; feedback and values stored once", () => {
    const job = jobOf("llm4ad:repairable");
    const events = eventsOf(runDir).filter((e) => e.job_id === job);
    const initial = events.find((e) => e.type === "EvaluationCompleted" && e.data.phase === "initial")!.data;
    const final = events.find((e) => e.type === "EvaluationCompleted" && e.data.phase === "final")!.data;
    const candidates = events.filter((e) => e.type === "CandidateEvaluated").map((e) => e.data);
    expect(candidates.length).toBeGreaterThan(1);
    // The initial values are evaluated first, as a root; the repaired candidate is their child.
    expect(candidates[0]).toMatchObject({ candidate: initial.candidate, parents: [], iteration: 1, split: "train", score: -1000000, example_scores: [-1000000] });
    const repaired = candidates.find((c) => c.candidate === final.candidate)!;
    expect(repaired).toMatchObject({ parents: [initial.candidate], split: "train", score: 0 });
    expect(final.score).toBe(0);
    for (const c of candidates) expect(c.feedback).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
  });

  it("`candidates --job` shows the table, which iteration introduced which change, and the lineage to the best", async () => {
    const job = jobOf("llm4ad:repairable");
    const r = await runCli(["candidates", runDir, "--job", job]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^job ${job} attempt 1 \\(llm4ad:repairable x PrioritySearch \\[ps_batches=1,ps_steps=1\\], seed 1\\): 2 candidates, \\d+ training evaluations$`));
    expect(lines[1]).toMatch(/^ {2}candidate +introduced +parents +evals +mean +best +marks +change$/);
    expect(lines[2]).toMatch(/^ {2}([0-9a-f]{8}) +initial +- +\d+ +-1000000\.0 +-1000000\.0 +initial$/);
    const root = /^ {2}([0-9a-f]{8})/.exec(lines[2]!)![1]!;
    expect(lines[3]).toMatch(new RegExp(`^ {2}([0-9a-f]{8}) +iteration 1 +${root} +\\d+ +0\\.0 +0\\.0 +final best +__code \\+1 -1 lines$`));
    const child = /^ {2}([0-9a-f]{8})/.exec(lines[3]!)![1]!;
    expect(lines[4]).toBe(`  lineage to the best: ${root} -> ${child}`);

    const json = JSON.parse((await runCli(["candidates", runDir, "--job", job, "--json"])).stdout) as {
      jobs: { lineage: string[]; candidates: { candidate: string; values: Record<string, string>; evaluations: { phase: string; feedback: unknown }[] }[] }[];
    };
    const [table] = json.jobs;
    expect(table!.lineage.map((c) => c.slice(0, 8))).toEqual([root, child]);
    expect(table!.candidates[1]!.values.__code).toContain("return 2 * x");
    const training = table!.candidates[1]!.evaluations.find((e) => e.phase === "training")!;
    expect(training.feedback).toEqual([expect.stringContaining('TRACE_FEEDBACK_JSON={"status": "ok"')]);
  });

  it("an unknown job is one line, exit 2", async () => {
    const r = await runCli(["candidates", runDir, "--job", "nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown job 'nope'");
  });
});
