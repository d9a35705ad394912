/**
 * What engine tests run jobs with, without a disk or a CLI: an in-memory run log (with the same
 * expected-version rule as the SQLite store, and a hook to make it fail the way a real one can),
 * tasks and trainers that block on promises the test controls, and the layers that provide them.
 */
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import type { JobSpec } from "../../src/config/matrix.js";
import type { TaskBundle } from "../../src/domain/task-bundle.js";
import { RunCalls } from "../../src/llm/run-calls.js";
import { LlmSource, RunLog, TaskSource, TrainerSource, type AppendError } from "../../src/engine/run-services.js";
import { EventLogWriteError, WrongExpectedVersionError } from "../../src/events/event-log-errors.js";
import { EVENT_SCHEMA_VERSION, type NewEvent, type StoredEvent } from "../../src/events/event-schema.js";
import { noOpTrainer } from "../../src/opt/trainers/noop-trainer.js";
import type { Trainer } from "../../src/opt/trainer.js";

/** When an append fails: `after-commit` commits first (the error comes late), `before-commit` commits nothing. */
export type AppendFault = "after-commit" | "before-commit";

export class MemoryRunLog {
  readonly events: StoredEvent[] = [];
  /** Texts committed with events (prompts, replies), by ref. */
  readonly stored = new Map<string, string>();
  private readonly versions = new Map<string, number>();
  /** Decides, per append, whether it fails and how. */
  fault: (events: readonly NewEvent[]) => AppendFault | null = () => null;

  version(stream: string): number {
    return this.versions.get(stream) ?? 0;
  }

  readonly service = RunLog.of({
    append: (stream, expected, events, contents): Either.Either<StoredEvent[], AppendError> => {
        const fault = this.fault(events);
        const diskFull = () => new EventLogWriteError({ path: "memory", code: "SQLITE_FULL", problem: "the disk is full" });
        if (fault === "before-commit") return Either.left(diskFull());
        const actual = this.version(stream);
        if (actual !== expected) return Either.left(new WrongExpectedVersionError({ stream, expected, actual }));
        const stored = events.map((e, i) => ({
          seq: this.events.length + i + 1,
          v: EVENT_SCHEMA_VERSION,
          stream,
          position: expected + i + 1,
          type: e.type,
          run_id: "memory",
          job_id: e.job_id ?? null,
          ts: "2026-01-01T00:00:00.000Z",
          data: e.data,
        })) as StoredEvent[];
        this.events.push(...stored);
        for (const [ref, text] of contents ?? []) this.stored.set(ref, text);
        this.versions.set(stream, expected + stored.length);
        return fault === "after-commit" ? Either.left(diskFull()) : Either.right(stored);
    },
    streamVersion: (stream) => Either.right(this.version(stream)),
    contents: (refs) => Either.right(new Map([...refs].flatMap((ref) => (this.stored.has(ref) ? [[ref, this.stored.get(ref)!] as const] : [])))),
  });

  of(jobId: string, type?: string): StoredEvent[] {
    return this.events.filter((e) => e.job_id === jobId && (type === undefined || e.type === type));
  }
}

/** A promise the test resolves, and whether the code under test has reached it. */
export class Gate {
  reached = false;
  aborted = false;
  private readonly arrived: Promise<void>;
  private arrive!: () => void;
  constructor() {
    this.arrived = new Promise((resolve) => (this.arrive = resolve));
  }
  /** Called by the code under test: waits until aborted (it never opens otherwise). */
  wait(signal?: AbortSignal): Promise<never> {
    this.reached = true;
    this.arrive();
    return new Promise((_, reject) => {
      signal?.addEventListener("abort", () => {
        this.aborted = true;
        reject(signal.reason);
      }, { once: true });
    });
  }
  /** Resolves when the code under test is waiting here. */
  whenReached(): Promise<void> {
    return this.arrived;
  }
}

export type BlockPoint = "load" | "initial" | "training" | "final" | null;

/** One-parameter task (score = -|x - 3|): its agent waits at `gate` on the chosen evaluation. */
export function gatedBundle(block: BlockPoint, gate: Gate): TaskBundle {
  let calls = 0;
  return {
    taskId: "fixture:gated",
    parameters: [{ name: "x", kind: "number", value: 0, description: "a number", trainable: true }],
    agent: {
      name: "GatedAgent",
      run: (_input, values, { signal }) => {
        calls += 1;
        // NoOp training makes the second agent call; the initial evaluation the first, the final the third.
        const phase = calls === 1 ? "initial" : calls === 2 ? "training" : "final";
        return phase === block ? gate.wait(signal) : values.x;
      },
    },
    guide: { name: "fixture.Distance", evaluate: (_i, response) => ({ score: -Math.abs(Number(response) - 3), feedback: "fb" }) },
    train_dataset: { inputs: [null], infos: [3] },
    optimizer_kwargs: {},
    metadata: {},
  };
}

export function gatedLayers(log: MemoryRunLog, block: BlockPoint, gate: Gate, trainer: Trainer = noOpTrainer) {
  return Layer.mergeAll(
    Layer.succeed(RunLog, log.service),
    Layer.succeed(TaskSource, { load: async () => (block === "load" ? gate.wait() : gatedBundle(block, gate)) }),
    Layer.succeed(TrainerSource, { find: (id) => ({ id, available: true, load: async () => trainer }) }),
    Layer.succeed(LlmSource, {
      forJob: () => ({ model: "none", complete: () => Promise.reject(new Error("no LLM in this test")) }),
      calls: new RunCalls({ journaling: false, price: () => null, budget: {} }),
    }),
  );
}

export function jobSpec(jobId: string, seed = 1): JobSpec {
  return {
    job_id: jobId,
    task_id: "fixture:gated",
    suite: "fixture",
    trainer_id: "NoOpTrainer",
    seed,
    raw_params: {},
    resolved_kwargs: { trainer_kwargs: {}, optimizer: null, optimizer_kwargs: {}, guide: null, guide_kwargs: {}, logger: null, logger_kwargs: {}, eval_kwargs: {} },
    task: { id: "fixture:gated", eval_kwargs: {} },
    trainer: { id: "NoOpTrainer", params_variants: [{}], optimizer: null, optimizer_kwargs: {}, guide: null, guide_kwargs: {}, logger: null, logger_kwargs: {} },
  } as unknown as JobSpec;
}
