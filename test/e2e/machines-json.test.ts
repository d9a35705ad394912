/**
 * `machines --json` prints a config XState's `createMachine` accepts, and the machine built from it
 * is the job machine: the same states, tags, final states and transitions (event → target, guard
 * and action names), and, given the job machine's implementations, the same behaviour.
 */
import { createActor, createMachine, type AnyStateMachine, type AnyStateNode } from "xstate";
import { describe, expect, it } from "vitest";
import { jobMachine, type JobMachineEvent } from "../../machines/job.machine.js";
import { runCli } from "../support/cli.js";

const nameOf = (item: unknown): string => (typeof item === "string" ? item : String((item as { type?: unknown }).type));

/** Every state node by id, with what an inspector or editor draws of it. */
function shapeOf(machine: AnyStateMachine) {
  const states: Record<string, unknown> = {};
  const visit = (node: AnyStateNode): void => {
    states[node.id] = {
      type: node.type,
      tags: [...node.tags].sort(),
      initial: node.type === "compound" ? node.initial.target.map((s: AnyStateNode) => s.id) : null,
      on: Object.fromEntries(
        [...node.transitions].map(([event, transitions]) => [
          event,
          transitions.map((t) => ({ target: t.target?.map((s) => s.id) ?? null, guard: t.guard === undefined ? null : nameOf(t.guard), actions: t.actions.map(nameOf), reenter: t.reenter })),
        ]),
      ),
    };
    for (const child of Object.values(node.states as Record<string, AnyStateNode>)) visit(child);
  };
  visit(machine.root);
  return { id: machine.id, context: machine.config.context as unknown, states };
}

async function printedMachine(): Promise<AnyStateMachine> {
  const r = await runCli(["machines", "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return createMachine(JSON.parse(r.stdout));
}

describe("trace-bench machines --json", () => {
  it("is a createMachine config with the job machine's states and transitions", async () => {
    const printed = shapeOf(await printedMachine());
    expect(printed).toEqual(shapeOf(jobMachine));
    // The comparison covers something: every state, the guarded EVALUATED branches, the final states.
    const finals = Object.entries(printed.states).filter(([, s]) => (s as { type: string }).type === "final").map(([id]) => id);
    expect(finals.sort()).toEqual(["job.budget_exhausted", "job.cancelled", "job.done", "job.failed", "job.no_valid_candidate", "job.skipped", "job.timeout"]);
    expect((printed.states["job.evaluating"] as { on: Record<string, { guard: string | null }[]> }).on.EVALUATED!.map((t) => t.guard)).toEqual(["trainingFailed", "budgetExhausted", null]);
  });

  it("behaves like the job machine once given its guards and actions by name", async () => {
    const printed = (await printedMachine()).provide(jobMachine.implementations);
    const paths: JobMachineEvent[][] = [
      [{ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }, { type: "EVALUATED" }],
      [{ type: "START" }, { type: "BUILT" }, { type: "TRAINING_FAILED", reason: "boom" }, { type: "EVALUATED" }],
      [{ type: "START" }, { type: "BUILT" }, { type: "BUDGET_EXHAUSTED", reason: "tokens" }, { type: "EVALUATED" }],
      [{ type: "START" }, { type: "BUILT" }, { type: "TRAINED" }, { type: "NO_VALID_CANDIDATE", reason: "every score -1e6" }],
      [{ type: "START" }, { type: "SKIP", reason: "no lean" }],
      [{ type: "START" }, { type: "BUILT" }, { type: "TIME_OUT", reason: "600 s" }],
      [{ type: "CANCEL", reason: "SIGINT" }],
    ];
    for (const path of paths) {
      const walk = (machine: AnyStateMachine) => {
        const actor = createActor(machine).start();
        const seen = path.map((event) => {
          actor.send(event);
          const s = actor.getSnapshot();
          return { value: s.value, context: s.context, status: s.status };
        });
        actor.stop();
        return seen;
      };
      expect(walk(printed)).toEqual(walk(jobMachine));
    }
  });

  it("keeps the text listing", async () => {
    const r = await runCli(["machines"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("evaluating [active]\n");
    expect(r.stdout).toContain("  EVALUATED -> failed if trainingFailed\n");
    expect(r.stdout).toContain("done (final) [terminal]\n");
  });
});
