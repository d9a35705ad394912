/**
 * Trainable JavaScript functions (a task's `code` parameters, which in mode real an LLM writes)
 * run in a V8 isolate of their own (`isolated-vm`), made for the call and disposed after it. An
 * isolate has no Node API at all: no `process`, `require`, file system, network, timers or child
 * processes, so a proposal like `() => this.constructor.constructor("return process")()` finds
 * only the isolate's own globals. Each call gets a heap limit and a time limit, and nothing it did
 * (a patched prototype, a global, a pending promise) is there for the next call, of this job or
 * another. Values cross as JSON: functions and symbols become null, cycles an error.
 *
 * Making an isolate and disposing of one are most of a call's cost, and neither needs the call:
 * the next call's isolate is made, and the last one disposed, once the event loop is free after
 * a call (an unused isolate is as fresh as a new one).
 */
import type IsolatedVm from "isolated-vm";

export class CodeExecutionError extends Error {
  override readonly name = "CodeExecutionError";
}

export interface JsSandboxOptions {
  /** V8 heap limit of each call's isolate, MiB (default 256). */
  readonly heapMb?: number;
}

type Ivm = typeof IsolatedVm;
let loaded: Promise<Ivm> | undefined;
/** The native addon, loaded on the first call: runs that evaluate no trainable code never load it. */
const isolatedVm = (): Promise<Ivm> => (loaded ??= import("isolated-vm").then((module) => (module as { default: Ivm }).default));

/** Messages isolated-vm gives for what the engine did to the isolate rather than what the code threw. */
const TIMED_OUT = /^Script execution timed out/;
const OUT_OF_MEMORY = /memory limit/i;

export class JsSandbox {
  private readonly live = new Set<IsolatedVm.Isolate>();
  /** Made after the last call for the next one; never ran code. */
  private spare: IsolatedVm.Isolate | null = null;
  private closed = false;

  constructor(private readonly options: JsSandboxOptions = {}) {}

  /**
   * `source` (a function expression) called with `args` in a fresh isolate; its result as plain
   * data. Throws `CodeExecutionError` (syntax error, exception, timeout, memory limit); an aborted
   * call throws the signal's reason.
   */
  async run(source: string, args: readonly unknown[], options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {}): Promise<unknown> {
    if (this.closed) throw new CodeExecutionError("Error: the JavaScript sandbox is closed");
    const { signal } = options;
    signal?.throwIfAborted();
    const timeoutMs = Math.max(1, options.timeoutMs ?? 1000);
    const ivm = await isolatedVm();
    const isolate = this.freshIsolate(ivm);
    this.live.add(isolate);
    const dispose = () => {
      if (!isolate.isDisposed) isolate.dispose();
    };
    signal?.addEventListener("abort", dispose, { once: true });
    try {
      const context = isolate.createContextSync();
      context.global.setSync("args", new ivm.ExternalCopy(JSON.parse(JSON.stringify(args)) as unknown).copyInto({ release: true }));
      // JSON.stringify is taken before the candidate's code runs: replacing it changes nothing.
      const script = isolate.compileScriptSync(`(function (stringify) { return stringify((${source})(...args)) ?? "null"; })(JSON.stringify)`, { filename: "trainable-code.js" });
      const json: unknown = await script.run(context, { timeout: timeoutMs });
      return typeof json === "string" ? (JSON.parse(json) as unknown) : null;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw codeError(error, timeoutMs);
    } finally {
      signal?.removeEventListener("abort", dispose);
      setImmediate(() => {
        dispose();
        this.live.delete(isolate);
        if (!this.closed) this.spare ??= this.newIsolate(ivm);
      });
    }
  }

  private newIsolate(ivm: Ivm): IsolatedVm.Isolate {
    return new ivm.Isolate({ memoryLimit: Math.max(8, this.options.heapMb ?? 256) });
  }

  private freshIsolate(ivm: Ivm): IsolatedVm.Isolate {
    const spare = this.spare;
    this.spare = null;
    return spare !== null && !spare.isDisposed ? spare : this.newIsolate(ivm);
  }

  /** Isolates that ran code and are not disposed yet: none once the event loop has turned after the last call (tests check). */
  liveIsolates(): number {
    return this.live.size;
  }

  /** Stops every call in flight; later calls fail. */
  close(): void {
    this.closed = true;
    for (const isolate of [...this.live, ...(this.spare ? [this.spare] : [])]) if (!isolate.isDisposed) isolate.dispose();
    this.live.clear();
    this.spare = null;
  }
}

function codeError(error: unknown, timeoutMs: number): CodeExecutionError {
  const message = error instanceof Error ? error.message : String(error);
  if (TIMED_OUT.test(message)) return new CodeExecutionError(`Error: Script execution timed out after ${timeoutMs}ms`);
  if (OUT_OF_MEMORY.test(message)) return new CodeExecutionError(`RangeError: the code exceeded the sandbox's memory limit (${message})`);
  const name = error instanceof Error ? error.name : "Error";
  return new CodeExecutionError(`${name}: ${message}`);
}
