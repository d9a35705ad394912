import { describe, expect, it } from "vitest";
import { scoresTable } from "../../../src/cli/scores-table.js";
import { aggregateRows } from "../../../src/events/projections/aggregates.js";
import type { ResultRow } from "../../../src/events/projections/results-table.js";

const row = (variant: string, seed: number, score: number, model = "m", status = "ok"): ResultRow =>
  ({ task_id: "t", suite: "s", trainer_id: "PS", variant, resolved_optimizer: "O", llm_model: model, seed, status, score_val: score, score_val_initial: -3, total_tokens: 10, cost_usd: 0 }) as unknown as ResultRow;

describe("the closing table of scores over seeds", () => {
  it("one line per variant: mean ± std (n), initial mean, best, interval or 'n too small', rounded without float noise", () => {
    const rows = [0.1, 0.2].map((s, i) => row("k=1", i, s));
    rows.push(...[1, 2, 3, 4, 5].map((s) => row("k=2", s, s / 10)));
    const lines = scoresTable(aggregateRows(rows));
    expect(lines[1]).toMatch(/^\s+TASK\s+TRAINER\s+VARIANT\s+N\s+MEAN ± STD\s+INITIAL\s+BEST\s+95% CI$/);
    expect(lines[2]).toMatch(/^\s+t\s+PS\s+k=1\s+2\s+0\.15 ± 0\.07071\s+-3\.0\s+0\.2\s+n too small$/);
    expect(lines[3]).toMatch(/^\s+t\s+PS\s+k=2\s+5\s+0\.3 ± 0\.1581\s+-3\.0\s+0\.5\s+\[0\.\d+, 0\.\d+\]$/);
    expect(lines.join("\n")).not.toMatch(/0000000/);
  });

  it("shows the model only when the run has several, and n as scored/jobs when some job has no score", () => {
    const lines = scoresTable(aggregateRows([row("default", 1, 1, "a"), row("default", 1, 2, "b"), row("default", 2, 0, "b", "failed")]));
    expect(lines[1]).toMatch(/VARIANT\s+MODEL\s+N/);
    expect(lines[3]).toMatch(/\sdefault\s+b\s+1\/2\s/);
    expect(scoresTable(aggregateRows([row("default", 1, 1)]))[1]).not.toMatch(/MODEL/);
  });

  it("keeps to the first groups and says where the rest are", () => {
    const rows = Array.from({ length: 45 }, (_, i) => row(`k=${i}`, 1, i));
    const lines = scoresTable(aggregateRows(rows));
    expect(lines).toHaveLength(1 + 1 + 40 + 1);
    expect(lines.at(-1)).toBe("  ... 5 more groups in aggregate.csv");
  });
});
