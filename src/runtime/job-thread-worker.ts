/**
 * The job thread's entry (job-thread.ts): runs the program's verb with what the main thread says
 * about the terminal, and hands back its exit code.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { JobThreadMessage, JobThreadProgram, JobThreadSetup, TerminalFacts, TerminalResize } from "./job-thread.js";
import { takeRelayedSignals } from "./stop-signals.js";
import { favourMemory } from "./v8-tuning.js";

const setup = workerData as JobThreadSetup;
// This thread's heap is set up: from here on V8 keeps the process's heaps small (v8-tuning.ts).
favourMemory();
const port = parentPort!;
takeRelayedSignals(port, setup.listening);
const { runVerb } = (await import(setup.program)) as JobThreadProgram;

/** A worker's stdout and stderr are pipes to the main thread: they take on the real streams' terminal facts. */
function takeOn(stream: NodeJS.WritableStream, facts: TerminalFacts): void {
  Object.defineProperty(stream, "isTTY", { value: facts.isTTY, configurable: true });
  Object.defineProperty(stream, "columns", { value: facts.columns, configurable: true, writable: true });
}
takeOn(process.stdout, setup.stdout);
takeOn(process.stderr, setup.stderr);
port.on("message", (message: TerminalResize | { readonly type?: unknown }) => {
  if (message.type !== "resize") return;
  const { stream, columns } = message as TerminalResize;
  (process[stream] as { columns?: number }).columns = columns;
});
port.unref();

try {
  const code = await runVerb(setup.argv);
  port.postMessage({ type: "exit-code", code } satisfies JobThreadMessage);
} catch (error) {
  port.postMessage({ type: "internal-error", stack: error instanceof Error ? (error.stack ?? String(error)) : String(error) } satisfies JobThreadMessage);
  // Whatever the verb left running must not outlive the bug, as when the error ended the thread.
  process.exit(70);
}
