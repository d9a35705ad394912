/**
 * The services a run's jobs work with, as Effect tags. The CLI provides the live layers (the run
 * session's log, the task registry, the trainer catalog, the LLM factory); engine tests provide
 * their own (a log that fails on purpose, tasks that block until interrupted) on the same program.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import type * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import type { JobSpec } from "../config/matrix.js";
import type { EventLogCorruptError, EventLogWriteError, InvalidAppendError, WrongExpectedVersionError } from "../events/event-log-errors.js";
import type { Contents } from "../events/content-ref.js";
import type { NewEvent, StoredEvent } from "../events/event-schema.js";
import type { TaskBundle } from "../domain/task-bundle.js";
import type { TaskLlmRole } from "../domain/task-llm.js";
import type { Embedder, Llm } from "../llm/llm.js";
import type { RunBudgetJudge } from "../llm/run-budget-judge.js";
import type { RunCalls } from "../llm/run-calls.js";
import type { TrainerInfo } from "../opt/trainer-catalog.js";
import type { TaskRegistry } from "../tasks/task-registry.js";

export type AppendError = WrongExpectedVersionError | EventLogWriteError | InvalidAppendError;

/**
 * The run's log as jobs see it: commit a stream's events at an expected version (subscribers are
 * notified after). The log is synchronous (SQLite in process), so results are `Either`s: usable
 * in a fiber and in a trainer's synchronous callbacks alike.
 */
export class RunLog extends Context.Tag("trace-bench/RunLog")<
  RunLog,
  {
    /** `contents`: texts the events refer to by ref (prompts, replies), committed with them. */
    readonly append: (stream: string, expectedVersion: number, events: readonly NewEvent[], contents?: Contents) => Either.Either<StoredEvent[], AppendError>;
    readonly streamVersion: (stream: string) => Either.Either<number, EventLogWriteError | EventLogCorruptError>;
    /** The stored texts among `refs` (the journal's replies). */
    readonly contents: (refs: Iterable<string>) => Either.Either<Map<string, string>, EventLogWriteError | EventLogCorruptError>;
  }
>() {}

/** Where task bundles come from. */
export class TaskSource extends Context.Tag("trace-bench/TaskSource")<TaskSource, Pick<TaskRegistry, "load">>() {}

/**
 * The registry as the run's scoped task source: closing the scope (the run's runtime disposed,
 * however the run ended) closes its suites, and with them their evaluation worker pools (python
 * workers, JavaScript isolates): none outlives the run.
 */
export const scopedTaskSource = (registry: Pick<TaskRegistry, "load" | "close">): Layer.Layer<TaskSource> =>
  Layer.scoped(
    TaskSource,
    Effect.acquireRelease(Effect.succeed(registry), (owned) => Effect.sync(() => owned.close())),
  );

/** Which trainers exist and how to load them. */
export class TrainerSource extends Context.Tag("trace-bench/TrainerSource")<TrainerSource, { readonly find: (id: string) => TrainerInfo | undefined }>() {}

/**
 * The LLM port: the LLM a job's optimizers use (each call is recorded per job around it), and
 * what the run's jobs share about calls (prices, budgets, journaling, the run-stopping error).
 */
export class LlmSource extends Context.Tag("trace-bench/LlmSource")<
  LlmSource,
  {
    /** The job's LLM; `bundle` tells the stub what the task offers it to propose. */
    readonly forJob: (job: JobSpec, bundle?: TaskBundle) => Llm;
    readonly calls: RunCalls;
    /** The LLM a task's agent or guide calls, by role (absent: the task gets none, and its calls are its errors). */
    readonly forTask?: (job: JobSpec, role: TaskLlmRole) => Llm;
    /** The embeddings a job's trainer asks for (POLCA), with its model or the run's (absent: none). */
    readonly forEmbedding?: (job: JobSpec, model?: string) => Embedder;
    /** The task's calls are answered by the stub (mode stub). */
    readonly stubAnswers?: boolean;
    /** Where the run's budget is held by another process (a bullmq worker's coordinator); absent: `calls` holds it. */
    readonly budgetJudge?: RunBudgetJudge;
  }
>() {}
