import { describe, expect, it } from "vitest";
import { TERMINAL_JOB_STATES } from "../../../machines/job.machine.js";
import { machineGraph } from "../../../src/ui/machine-graph.js";

describe("machineGraph (the diagram the dashboard draws)", () => {
  const graph = machineGraph();
  const edge = (from: string, event: string) => graph.edges.filter((e) => e.from === from && e.event === event).map((e) => (e.guard === null ? e.to : `${e.to} if ${e.guard}`));

  it("has every state of the job machine, the terminal ones final", () => {
    expect(graph.initial).toBe("queued");
    expect(graph.nodes.map((n) => n.id)).toEqual(["queued", "building", "training", "evaluating", ...TERMINAL_JOB_STATES]);
    expect(graph.nodes.filter((n) => n.final).map((n) => n.id)).toEqual([...TERMINAL_JOB_STATES]);
    expect(graph.nodes.find((n) => n.id === "training")!.tags).toEqual(["active"]);
  });

  it("has the machine's transitions, guarded ones with their guard", () => {
    expect(edge("queued", "START")).toEqual(["building"]);
    expect(edge("building", "SKIP")).toEqual(["skipped"]);
    expect(edge("training", "BUDGET_EXHAUSTED")).toEqual(["evaluating"]);
    expect(edge("evaluating", "EVALUATED")).toEqual(["failed if trainingFailed", "budget_exhausted if budgetExhausted", "done"]);
    for (const active of ["building", "training", "evaluating"]) {
      expect(edge(active, "FAIL")).toEqual(["failed"]);
      expect(edge(active, "TIME_OUT")).toEqual(["timeout"]);
      expect(edge(active, "CANCEL")).toEqual(["cancelled"]);
    }
    expect(graph.edges.filter((e) => TERMINAL_JOB_STATES.includes(e.from as never))).toEqual([]);
  });
});
