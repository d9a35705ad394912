/**
 * Runs a verb that runs jobs (`run`) on a thread of its own, whose young generation is small.
 *
 * A run allocates fast and keeps little, so V8 grows a thread's young generation to its maximum
 * within the first jobs, and it is then part of the process's resident set for the whole run. V8
 * takes that size only when a thread starts (from `--max-semi-space-size` on the command line, or
 * a worker's `resourceLimits`), so the run's code runs in a worker started with small
 * semi-spaces: faster jobs and a lower peak than the main thread's, for a little memory and start
 * time of its own isolate on a small run (docs/performance.md: ledger, 23ef1d6 and a2b6a64).
 *
 * The main thread keeps what only it can do: it receives the signals and relays them
 * (stop-signals.ts), exits at once on a second one as the single-threaded CLI did, and tells
 * the job thread whether its output is a terminal and how wide (a worker's stdout is a pipe to
 * the main thread, which writes it to the real one).
 *
 * The port: what the thread runs is named by its module's URL (a `JobThreadProgram`, the CLI's
 * main.ts), so that this folder imports nothing of the CLI.
 */
import { Worker } from "node:worker_threads";
import { onStopSignals, type RelayedSignal, type StopSignal, type UnheardSignal } from "./stop-signals.js";

const WORKER_URL = new URL("./job-thread-worker.js", import.meta.url);
/** Young generation of the job thread, in MiB: V8 makes it three semi-spaces' worth (4 MiB each). */
const YOUNG_GENERATION_MB = 12;

/** What the job thread runs: a module whose `runVerb(argv)` resolves to the exit code. */
export interface JobThreadProgram {
  runVerb(argv: readonly string[]): Promise<number>;
}

/** What the job thread is told about the real stdout and stderr. */
export interface TerminalFacts {
  readonly isTTY: boolean;
  readonly columns: number | undefined;
}

export interface JobThreadSetup {
  /** The URL of the `JobThreadProgram` module. */
  readonly program: string;
  readonly argv: readonly string[];
  /** One Int32 over shared memory: 1 while the run listens for stop signals (stop-signals.ts). */
  readonly listening: Int32Array;
  readonly stdout: TerminalFacts;
  readonly stderr: TerminalFacts;
}

export type JobThreadMessage =
  | UnheardSignal
  | { readonly type: "exit-code"; readonly code: number }
  /** A bug in the verb: its stack as text (a thrown error crossing threads arrives as a plain object, printed `[object Object]`). */
  | { readonly type: "internal-error"; readonly stack: string };
export type TerminalResize = { readonly type: "resize"; readonly stream: "stdout" | "stderr"; readonly columns: number };

const factsOf = (stream: NodeJS.WriteStream): TerminalFacts => ({ isTTY: stream.isTTY === true, columns: stream.columns });

/** Runs `argv` through `program` (a `JobThreadProgram` module) on the job thread; resolves to the exit code. */
export function runOnJobThread(program: URL, argv: readonly string[]): Promise<number> {
  const listening = new Int32Array(new SharedArrayBuffer(4));
  const setup: JobThreadSetup = { program: program.href, argv, listening, stdout: factsOf(process.stdout), stderr: factsOf(process.stderr) };
  const worker = new Worker(WORKER_URL, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });

  let signals = 0;
  const relay = (signal: StopSignal) => {
    // Nothing in the job thread stops gracefully (the config is loading, the run is planned, or its
    // summary written): the signal does what it would have done, at once.
    if (Atomics.load(listening, 0) === 0) return reraise(signal);
    signals += 1;
    if (signals > 1) process.exit(130); // a second Ctrl-C: every committed event is already safe
    worker.postMessage({ type: "signal", signal } satisfies RelayedSignal);
  };
  const stopRelaying = onStopSignals(relay);
  const reraise = (signal: StopSignal) => {
    stopRelaying();
    process.kill(process.pid, signal);
  };

  const resizes = (["stdout", "stderr"] as const).map((name) => {
    const stream = process[name];
    const onResize = () => worker.postMessage({ type: "resize", stream: name, columns: stream.columns } satisfies TerminalResize);
    stream.on("resize", onResize);
    return () => stream.off("resize", onResize);
  });

  return new Promise<number>((resolve, reject) => {
    let code: number | null = null;
    worker.on("message", (message: JobThreadMessage) => {
      if (message.type === "exit-code") code = message.code;
      else if (message.type === "internal-error") reject(Object.assign(new Error("internal error on the job thread"), { stack: message.stack }));
      else if (message.type === "signal-unheard") reraise(message.signal);
    });
    worker.on("error", reject);
    worker.on("exit", (exitCode) => {
      stopRelaying();
      for (const stop of resizes) stop();
      // A thread that ended through process.exit(n) (the verb's own exit) gives n.
      resolve(code ?? exitCode);
    });
  });
}
