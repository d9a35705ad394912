import * as Data from "effect/Data";

/** The task exists but cannot run on this machine (missing tool, data or service): the job is skipped. */
export class TaskUnavailableError extends Data.TaggedError("TaskUnavailableError")<{ readonly taskId: string; readonly reason: string }> {
  override get message(): string {
    return this.reason;
  }
}

/** No suite knows this task id. */
export class TaskNotFoundError extends Data.TaggedError("TaskNotFoundError")<{ readonly taskId: string; readonly reason: string }> {
  override get message(): string {
    return this.reason;
  }
}

/** A `--bench` value names a suite that does not exist. */
export class BenchSelectorError extends Data.TaggedError("BenchSelectorError")<{ readonly unknown: readonly string[]; readonly allowed: readonly string[] }> {
  override get message(): string {
    return `--bench: unknown bench selector(s): ${this.unknown.join(", ")}; allowed: ${this.allowed.join(", ")}`;
  }
}

/** A module named in TRACE_BENCH_TASK_MODULES cannot be loaded or exports no task suite: the user's to fix. */
export class TaskModuleError extends Data.TaggedError("TaskModuleError")<{ readonly path: string; readonly problem: string }> {
  override get message(): string {
    return `TRACE_BENCH_TASK_MODULES: ${this.problem}`;
  }
}

/**
 * A task id that names a path outside its suite's tasks root (`..`, an absolute path, a link that
 * resolves elsewhere): never loaded, whatever is there.
 */
export class TaskOutsideRootError extends Data.TaggedError("TaskOutsideRootError")<{ readonly taskId: string; readonly reason: string }> {
  override get message(): string {
    return this.reason;
  }
}
