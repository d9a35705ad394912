/**
 * The supervisor's FiberMap: one running job can be cancelled alone (it records `cancelled` with
 * the reason given, the others finish), a job that is not running is refused, and interrupting the
 * supervisor (its scope closing) cancels every job still running, each recorded once.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import { describe, expect, it } from "vitest";
import { Supervisor } from "../../../src/engine/supervisor.js";
import { LlmSource, RunLog, TaskSource, TrainerSource } from "../../../src/engine/run-services.js";
import { RunCalls } from "../../../src/llm/run-calls.js";
import { noOpTrainer } from "../../../src/opt/trainers/noop-trainer.js";
import { Gate, gatedBundle, jobSpec, MemoryRunLog } from "../../support/engine-fixtures.js";

const BLOCKS = "fixture:blocks";

/** Jobs whose task is BLOCKS wait at `gate` in their initial evaluation (until aborted); the others run through. */
function layers(log: MemoryRunLog, gate: Gate) {
  return Layer.mergeAll(
    Layer.succeed(RunLog, log.service),
    Layer.succeed(TaskSource, { load: async (taskId) => gatedBundle(taskId === BLOCKS ? "initial" : null, gate) }),
    Layer.succeed(TrainerSource, { find: (id) => ({ id, available: true, load: async () => noOpTrainer }) }),
    Layer.succeed(LlmSource, {
      forJob: () => ({ model: "none", complete: () => Promise.reject(new Error("no LLM in this test")) }),
      calls: new RunCalls({ journaling: false, price: () => null, budget: {} }),
    }),
  );
}

const job = (id: string, blocks: boolean) => ({ spec: { ...jobSpec(id), task_id: blocks ? BLOCKS : "fixture:gated" }, attempt: 1, history: [] });
const options = (jobs: ReturnType<typeof job>[], maxWorkers: number) => ({ jobs, maxWorkers, failFast: false, invocation: 1, timeoutSeconds: 0, onWarning: () => {} });
const finishedOf = (log: MemoryRunLog, id: string) => log.of(id, "JobFinished").map((e) => (e.type === "JobFinished" ? { status: e.data.status, feedback: e.data.feedback } : null));

describe("Supervisor: a FiberMap of jobs by id", () => {
  it("cancels one running job alone: it records cancelled with the reason, the others finish ok", async () => {
    const log = new MemoryRunLog();
    const gate = new Gate();
    const supervisor = new Supervisor();
    const jobs = [job("job000000001", false), job("job000000002", true), job("job000000003", false)];
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const running = yield* Effect.fork(supervisor.supervise(options(jobs, 2)));
        yield* Effect.promise(() => gate.whenReached());
        const outcome = yield* supervisor.cancelJob("job000000002", "cancelled: alone, in a test");
        // Its cancellation is committed once cancelJob returns.
        const recordedAtOnce = finishedOf(log, "job000000002");
        const again = yield* supervisor.cancelJob("job000000002", "twice");
        const exit = yield* Fiber.await(running);
        return { outcome, recordedAtOnce, again, exit };
      }).pipe(Effect.provide(layers(log, gate))),
    );
    expect(result.outcome).toEqual({ cancelled: true });
    expect(result.recordedAtOnce).toEqual([{ status: "cancelled", feedback: "cancelled: alone, in a test" }]);
    expect(result.again).toEqual({ cancelled: false, why: "already_cancelling" });
    expect(Exit.isSuccess(result.exit)).toBe(true);
    expect(gate.aborted).toBe(true);
    expect(finishedOf(log, "job000000001").map((f) => f?.status)).toEqual(["ok"]);
    expect(finishedOf(log, "job000000002").map((f) => f?.status)).toEqual(["cancelled"]);
    expect(finishedOf(log, "job000000003").map((f) => f?.status)).toEqual(["ok"]);
    expect(supervisor.cancelledJobs()).toEqual(new Set(["job000000002"]));
  });

  it("refuses to cancel a job that is not running (finished, or no supervision under way)", async () => {
    const log = new MemoryRunLog();
    const supervisor = new Supervisor();
    expect(await Effect.runPromise(supervisor.cancelJob("job000000001", "r"))).toEqual({ cancelled: false, why: "not_running" });
    await Effect.runPromise(supervisor.supervise(options([job("job000000001", false)], 1)).pipe(Effect.provide(layers(log, new Gate()))));
    expect(await Effect.runPromise(supervisor.cancelJob("job000000001", "r"))).toEqual({ cancelled: false, why: "not_running" });
    expect(finishedOf(log, "job000000001").map((f) => f?.status)).toEqual(["ok"]);
  });

  it("interrupting the supervisor closes its scope: every running job is cancelled and recorded once, none starts after", async () => {
    const log = new MemoryRunLog();
    const gate = new Gate();
    const supervisor = new Supervisor();
    const jobs = [job("job000000001", true), job("job000000002", true), job("job000000003", true)];
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        const running = yield* Effect.fork(supervisor.supervise(options(jobs, 2)));
        yield* Effect.promise(() => gate.whenReached());
        // Both workers' jobs are under way (each queued) before the interruption.
        while (log.of("job000000002", "JobQueued").length === 0) yield* Effect.promise(() => new Promise((r) => setImmediate(r)));
        yield* Fiber.interrupt(running);
        return yield* Fiber.await(running);
      }).pipe(Effect.provide(layers(log, gate))),
    );
    expect(Exit.isInterrupted(exit)).toBe(true);
    for (const id of ["job000000001", "job000000002"]) {
      expect(finishedOf(log, id)).toEqual([{ status: "cancelled", feedback: expect.stringMatching(/^cancelled: the run was interrupted/) }]);
    }
    expect(log.of("job000000003")).toEqual([]);
    expect(supervisor.cancelledJobs().size).toBe(0);
  });
});
