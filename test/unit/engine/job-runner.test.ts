/**
 * The job runner as an Effect, on an in-memory log: timeouts on (faked) timers, cancellation at
 * every await point of an attempt, and a log that fails around a commit (the double-terminal
 * probe). Every outcome must be exactly one terminal transition and one JobFinished.
 */
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as TestContext from "effect/TestContext";
import { describe, expect, it, vi } from "vitest";
import { runJob } from "../../../src/engine/job-runner.js";
import { superviseJobs } from "../../../src/engine/supervisor.js";
import type { Trainer } from "../../../src/opt/trainer.js";
import { TaskSource } from "../../../src/engine/run-services.js";
import { Gate, gatedBundle, gatedLayers, jobSpec, MemoryRunLog, type BlockPoint } from "../../support/engine-fixtures.js";

const JOB = "job000000001";

function attempt(options: { timeoutSeconds?: number; warnings?: string[] } = {}) {
  return runJob(
    { spec: jobSpec(JOB), attempt: 1, history: [] },
    { invocation: 1, timeoutSeconds: options.timeoutSeconds ?? 0, onWarning: (text) => options.warnings?.push(text) },
  );
}

/** The transitions of the job, as "from→to EVENT". */
const path = (log: MemoryRunLog) => log.of(JOB, "JobTransitioned").map((e) => (e.type === "JobTransitioned" ? `${e.data.from}→${e.data.to} ${e.data.event}` : ""));
const finished = (log: MemoryRunLog) => log.of(JOB, "JobFinished").map((e) => (e.type === "JobFinished" ? e.data.status : null));

describe("runJob", () => {
  it("runs an attempt to done and records JobFinished ok with the machine's path", async () => {
    const log = new MemoryRunLog();
    const status = await Effect.runPromise(attempt().pipe(Effect.provide(gatedLayers(log, null, new Gate()))));
    expect(status).toBe("ok");
    expect(path(log)).toEqual(["queued→building START", "building→training BUILT", "training→evaluating TRAINED", "evaluating→done EVALUATED"]);
    expect(finished(log)).toEqual(["ok"]);
  });

  it("a job timeout fires on the clock: the work is aborted and the job ends `timeout` with its deadline recorded", async () => {
    const log = new MemoryRunLog();
    const gate = new Gate();
    // The deadline is a timer (faked here); the time it records comes from the run's Clock (the TestClock's 0).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const status = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(attempt({ timeoutSeconds: 30 }));
        yield* Effect.promise(() => gate.whenReached());
        vi.advanceTimersByTime(29_000);
        yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)));
        expect(finished(log)).toEqual([]); // not yet
        vi.advanceTimersByTime(1_000);
        return yield* Fiber.join(fiber);
      }).pipe(Effect.provide(gatedLayers(log, "training", gate)), Effect.provide(TestContext.TestContext)),
    ).finally(() => vi.useRealTimers());
    expect(status).toBe("timeout");
    expect(gate.aborted).toBe(true);
    expect(log.of(JOB, "JobTransitioned")[0]!.data).toMatchObject({ event: "START", deadline: "1970-01-01T00:00:30.000Z" });
    expect(path(log).at(-1)).toBe("training→timeout TIME_OUT");
    expect(log.of(JOB, "JobFinished")[0]!.data).toMatchObject({ status: "timeout", feedback: expect.stringMatching(/^job_timeout: exceeded 30s/) });
  });

  const cancelPoints: [BlockPoint, string][] = [
    ["load", "building"],
    ["initial", "building"],
    ["training", "training"],
    ["final", "evaluating"],
  ];
  for (const [point, state] of cancelPoints) {
    it(`interrupted while waiting on ${point}: one CANCEL from '${state}', one JobFinished cancelled, the work aborted`, async () => {
      const log = new MemoryRunLog();
      const gate = new Gate();
      const exit = await Effect.runPromise(
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(attempt());
          yield* Effect.promise(() => gate.whenReached());
          yield* Fiber.interrupt(fiber);
          return yield* Fiber.await(fiber);
        }).pipe(Effect.provide(gatedLayers(log, point, gate))),
      );
      expect(Exit.isInterrupted(exit)).toBe(true);
      if (point !== "load") expect(gate.aborted).toBe(true); // the task's own signal
      expect(path(log).at(-1)).toBe(`${state}→cancelled CANCEL`);
      expect(path(log).filter((p) => /→(done|failed|timeout|skipped|cancelled) /.test(p))).toHaveLength(1);
      expect(finished(log)).toEqual(["cancelled"]);
    });
  }
});

describe("honest outcomes", () => {
  const run = (trainer: Trainer) => {
    const log = new MemoryRunLog();
    return Effect.runPromise(attempt().pipe(Effect.provide(gatedLayers(log, null, new Gate(), trainer)))).then((status) => ({ status, log }));
  };

  it("a trainer's error ends the job failed with a one-line reason; the stack goes to the transition's detail (stdout.log)", async () => {
    const throwing: Trainer = {
      id: "Throwing",
      train: async () => {
        throw new Error("boom on line one\nand more on line two");
      },
    };
    const { status, log } = await run(throwing);
    expect(status).toBe("failed");
    expect(log.of(JOB, "JobFinished")[0]!.data).toMatchObject({ feedback: "training_error: boom on line one" });
    const failedTransition = log.of(JOB, "JobTransitioned").find((e) => e.type === "JobTransitioned" && e.data.event === "TRAINING_FAILED")!;
    expect(failedTransition.data).toMatchObject({ reason: "training_error: boom on line one", detail: expect.stringMatching(/and more on line two\n\s+at /) });
  });

  it("a trainer that swallows every failed LLM call still ends failed: llm_unavailable, never ok", async () => {
    const swallowing: Trainer = {
      id: "Swallowing",
      async train(context) {
        const rollouts = await context.rollout(context.initialValues, [{ input: null, info: 3 }]);
        for (let i = 0; i < 2; i++) {
          try {
            await context.createOptimizer().propose(context.problem(context.initialValues, rollouts), context.signal);
          } catch {
            // what GEPA does with a failed proposal: skip it and go on
          }
        }
        return { values: context.initialValues };
      },
    };
    const { status, log } = await run(swallowing);
    expect(status).toBe("failed");
    expect(log.of(JOB, "JobFinished")[0]!.data).toMatchObject({ feedback: "llm_unavailable: 2 of 2 LLM calls failed; last: no LLM in this test" });
    expect(log.of(JOB, "LlmCallStarted")).toHaveLength(2);
    expect(log.of(JOB, "LlmCallFailed").map((e) => e.data)).toMatchObject([{ call: 1, error_class: "error" }, { call: 2, error_class: "error" }]);
  });
});

describe("the log fails around a commit (the double-terminal probe)", () => {
  it("an error reported after the terminal events committed leaves exactly one terminal event, and the job is ok", async () => {
    const log = new MemoryRunLog();
    log.fault = (events) => (events.some((e) => e.type === "JobFinished") ? "after-commit" : null);
    const warnings: string[] = [];
    const status = await Effect.runPromise(attempt({ warnings }).pipe(Effect.provide(gatedLayers(log, null, new Gate()))));
    expect(status).toBe("ok");
    expect(finished(log)).toEqual(["ok"]);
    expect(path(log).filter((p) => p.startsWith("evaluating→"))).toEqual(["evaluating→done EVALUATED"]);
    expect(warnings).toEqual([expect.stringMatching(/committed the events but then reported: .*disk is full/)]);
  });

  it("an error after a mid-job commit does not end the job", async () => {
    const log = new MemoryRunLog();
    log.fault = (events) => (events.some((e) => e.type === "JobTransitioned" && e.data.event === "BUILT") ? "after-commit" : null);
    const status = await Effect.runPromise(attempt({ warnings: [] }).pipe(Effect.provide(gatedLayers(log, null, new Gate()))));
    expect(status).toBe("ok");
    expect(finished(log)).toEqual(["ok"]);
  });

  it("when nothing could be committed the attempt fails with JobNotRecorded and records no outcome it could not keep", async () => {
    const log = new MemoryRunLog();
    log.fault = (events) => (events.some((e) => e.type === "JobTransitioned" && e.data.event === "TRAINED") ? "before-commit" : null);
    const exit = await Effect.runPromiseExit(attempt().pipe(Effect.provide(gatedLayers(log, null, new Gate()))));
    expect(Exit.isFailure(exit) && !Exit.isInterrupted(exit)).toBe(true);
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(/JobNotRecorded/);
    expect(finished(log)).toEqual([]);
  });
});

describe("superviseJobs", () => {
  const specs = ["job000000001", "job000000002", "job000000003"];
  const supervise = (log: MemoryRunLog, maxWorkers = 1, tasks?: TaskSource["Type"]) =>
    superviseJobs({
      jobs: specs.map((id) => ({ spec: jobSpec(id), attempt: 1, history: [] })),
      maxWorkers,
      failFast: false,
      invocation: 1,
      timeoutSeconds: 0,
      onWarning: () => {},
    }).pipe((job) => (tasks ? Effect.provideService(job, TaskSource, tasks) : job), Effect.provide(gatedLayers(log, null, new Gate())));
  /** The most jobs under way at once, by the log's order (queued, not yet finished). */
  const mostAtOnce = (log: MemoryRunLog) => {
    let running = 0;
    let most = 0;
    for (const e of log.events) {
      if (e.type === "JobQueued") most = Math.max(most, ++running);
      if (e.type === "JobFinished") running -= 1;
    }
    return most;
  };
  /** Each job's committed outcomes, in the order of the matrix. */
  const outcomes = (log: MemoryRunLog) => specs.flatMap((id) => log.of(id, "JobFinished").map((e) => [id, e.type === "JobFinished" ? e.data.status : null]));

  it("runs every job once, at most maxWorkers at a time", async () => {
    // Each job is held while loading its task until `maxWorkers` jobs are held at once, so the
    // count does not depend on how the machine's load interleaves the fibers.
    const heldAtOnce = async (maxWorkers: number) => {
      const log = new MemoryRunLog();
      let held = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const turnstile = {
        load: async () => {
          held += 1;
          if (held === maxWorkers) release();
          await released;
          return gatedBundle(null, new Gate());
        },
      };
      await Effect.runPromise(supervise(log, maxWorkers, turnstile));
      return log;
    };
    const log = await heldAtOnce(2);
    expect(outcomes(log)).toEqual(specs.map((id) => [id, "ok"]));
    expect(mostAtOnce(log)).toBe(2);
    const alone = await heldAtOnce(1);
    expect(outcomes(alone)).toEqual(specs.map((id) => [id, "ok"]));
    expect(mostAtOnce(alone)).toBe(1);
  });

  it("a job the log cannot record stops the invocation: no later job starts, and the error comes out typed", async () => {
    const log = new MemoryRunLog();
    log.fault = (events) => (events.some((e) => e.job_id === "job000000002" && e.type === "JobTransitioned" && e.data.event === "BUILT") ? "before-commit" : null);
    const exit = await Effect.runPromiseExit(supervise(log));
    expect(Exit.isFailure(exit)).toBe(true);
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(/JobNotRecorded/);
    expect(outcomes(log)).toEqual([["job000000001", "ok"]]);
    expect(log.of("job000000003")).toEqual([]);
  });
});
