/**
 * A Stately-compatible inspector over a WebSocket (`run --inspect [ws-url]`): XState inspection
 * events are converted to Stately's format by `@statelyai/inspect` and sent to `url`, where its
 * relay (`createInspectorServer` from `@statelyai/inspect/server`) hands them to the Stately
 * inspector in a browser.
 *
 * The transport is ours rather than the package's `createWebSocketInspector`: that one retries a
 * failed connection every 5 s on a timer `stop()` does not clear (the process would never exit)
 * and keeps only the last 200 events while connecting. Here an inspector that cannot be reached
 * is reported once and dropped, events wait (without a cap) only while the first connection is
 * being made, and `close()` delivers what is buffered before disconnecting.
 */
import { createInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import type { InspectionEvent, Observer } from "xstate";
import WebSocket from "ws";

/** How long the connection may take to open, and `close()` to deliver what is buffered. */
const CONNECT_TIMEOUT_MS = 3_000;
const DRAIN_TIMEOUT_MS = 3_000;

export interface WebSocketInspector {
  readonly inspect: Observer<InspectionEvent>;
  close(): Promise<void>;
}

type Status = "connecting" | "open" | "gone";

/**
 * Connects to `url` (a ws:// or wss:// URL without a fragment) at once, without blocking;
 * `onProblem` is told, once, that the inspector cannot be reached or went away (closing it
 * ourselves is not a problem). Inspection never throws into the run: events that cannot be
 * delivered are dropped.
 */
export function openWebSocketInspector(url: string, onProblem: (text: string) => void): WebSocketInspector {
  let status: Status = "connecting";
  const waiting: string[] = [];
  let unacknowledged = 0;
  const settled = new EventTarget();

  const giveUp = (why: string): void => {
    if (status === "gone") return;
    const wasOpen = status === "open";
    status = "gone";
    waiting.length = 0;
    settled.dispatchEvent(new Event("change"));
    onProblem(wasOpen ? `inspector ${url}: ${why}; the run goes on without it` : `inspector ${url} cannot be reached (${why}); the run goes on without it`);
  };

  const socket = new WebSocket(url, { handshakeTimeout: CONNECT_TIMEOUT_MS });
  socket.on("open", () => {
    status = "open";
    for (const text of waiting.splice(0)) transmit(text);
    settled.dispatchEvent(new Event("change"));
  });
  socket.on("error", (error) => giveUp(error.message));
  socket.on("close", (code) => giveUp(`the connection closed (code ${code})`));
  // An inspector's replies are of no use to the run.
  socket.on("message", () => {});

  function transmit(text: string): void {
    unacknowledged += 1;
    socket.send(text, () => {
      unacknowledged -= 1;
      if (unacknowledged === 0) settled.dispatchEvent(new Event("change"));
    });
  }

  const inspector = createInspector({
    send(event: StatelyInspectionEvent) {
      if (status === "gone") return;
      let text: string;
      try {
        text = JSON.stringify(event);
      } catch (error) {
        return giveUp(`an inspection event could not be serialized: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (status === "open") transmit(text);
      else waiting.push(text);
    },
  });

  /** Resolves once `done()` holds, or after `ms`. */
  const until = (done: () => boolean, ms: number): Promise<void> =>
    new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        settled.removeEventListener("change", check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, ms);
      settled.addEventListener("change", check);
      check();
    });

  return {
    inspect: inspector.inspect,
    async close() {
      // @statelyai/inspect converts each XState event on a later timer tick: let those run first.
      await new Promise((resolve) => setTimeout(resolve, 10));
      await until(() => status !== "connecting", CONNECT_TIMEOUT_MS);
      await until(() => status !== "open" || unacknowledged === 0, DRAIN_TIMEOUT_MS);
      const wasOpen = status === "open";
      status = "gone";
      if (wasOpen) {
        const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
        socket.close(1000, "run finished");
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      }
      socket.terminate();
    },
  };
}
