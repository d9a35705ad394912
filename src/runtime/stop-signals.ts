/**
 * The signals that stop a run (Ctrl-C, a `kill`, a closed terminal), wherever the run's code runs.
 * On the process's main thread they are the process's own; in the job thread (job-thread.ts) the
 * main thread receives them and relays them here, since Node delivers signals to the main thread
 * only.
 */
import { isMainThread, type MessagePort } from "node:worker_threads";

/** A closed terminal (SIGHUP) stops a run like SIGTERM: jobs are cancelled, children killed, the run stays resumable. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** What the main thread sends the job thread, and what it answers if nothing listened by the time it came. */
export type RelayedSignal = { readonly type: "signal"; readonly signal: StopSignal };
export type UnheardSignal = { readonly type: "signal-unheard"; readonly signal: StopSignal };

const listeners = new Set<(signal: StopSignal) => void>();
/** Shared with the main thread: 1 while something in the job thread listens, so that it need not ask. */
let listening: Int32Array | null = null;

/**
 * The job thread takes the signals the main thread relays on `port`, and says in `flag` whether
 * anything listens (while nothing does, the main thread lets a signal act at once instead of
 * relaying it). Called before the run's code loads, so that the flag is shared before anything
 * listens.
 */
export function takeRelayedSignals(port: MessagePort, flag: Int32Array): void {
  listening = flag;
  port.on("message", (message: RelayedSignal | { readonly type?: unknown }) => {
    if (message.type !== "signal") return;
    const { signal } = message as RelayedSignal;
    // The last listener left while the signal was on its way: it does what it would have done.
    if (listeners.size === 0) port.postMessage({ type: "signal-unheard", signal } satisfies UnheardSignal);
    else for (const listener of [...listeners]) listener(signal);
  });
  // The port must not keep the thread alive once its work is done.
  port.unref();
}

/** Calls `listener` for each stop signal until the returned function is called. */
export function onStopSignals(listener: (signal: StopSignal) => void): () => void {
  if (isMainThread) {
    for (const name of STOP_SIGNALS) process.on(name, listener);
    return () => {
      for (const name of STOP_SIGNALS) process.off(name, listener);
    };
  }
  listeners.add(listener);
  if (listening !== null) Atomics.store(listening, 0, 1);
  return () => {
    listeners.delete(listener);
    if (listening !== null && listeners.size === 0) Atomics.store(listening, 0, 0);
  };
}
