/**
 * The phase table and the machine agree: every active state of the job machine has its phase,
 * and nothing else does (queued waits for START, final states end the attempt).
 */
import { describe, expect, it } from "vitest";
import type { AnyStateNode } from "xstate";
import { jobMachine } from "../../../machines/job.machine.js";
import { JOB_PHASES, phaseOf } from "../../../src/engine/phases/job-phases.js";

const states = Object.entries(jobMachine.root.states as Record<string, AnyStateNode>);

describe("job phases", () => {
  it("the states tagged active are exactly the table's", () => {
    const active = states.filter(([, node]) => node.tags.includes("active")).map(([name]) => name);
    expect(active).toEqual(["building", "training", "evaluating"]);
    expect(Object.keys(JOB_PHASES).sort()).toEqual([...active].sort());
  });

  it("every other state has no phase", () => {
    for (const [name, node] of states) expect(phaseOf(name) === null, name).toBe(!node.tags.includes("active"));
    expect(phaseOf("toString")).toBeNull();
  });
});
