/**
 * The JavaScript sandbox (a fresh isolated-vm isolate per call) against what an LLM's proposal
 * could try: the constructor escape, require, process, network, timers, patching shared globals,
 * allocation bombs and endless loops. Each fails inside the sandbox, ordinary code works, and a
 * benign call made after each hostile one answers exactly as it does alone.
 */
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CodeExecutionError, JsSandbox } from "../../../adapters/sandbox/js-sandbox.js";

const sandboxes: JsSandbox[] = [];
afterEach(() => {
  for (const s of sandboxes.splice(0)) s.close();
});
/** Isolates that ran code and are still alive, once the event loop has had its turn to dispose of them. */
async function liveIsolates(js: JsSandbox): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  return js.liveIsolates();
}
function sandbox(): JsSandbox {
  const s = new JsSandbox({ heapMb: 64 });
  sandboxes.push(s);
  return s;
}

const PROCESS = `this.constructor.constructor("return process")()`;
/** The benign call run after every hostile one: its answer alone. */
const BENIGN = "(greeting, query) => greeting + ', ' + query.split(' ').at(-1) + '!'";
const BENIGN_ARGS = ["Hello", "I am Sam"];
const BENIGN_ANSWER = "Hello, Sam!";

describe("the JavaScript sandbox", () => {
  it("runs ordinary candidate code and returns plain data", async () => {
    const js = sandbox();
    expect(await js.run(BENIGN, BENIGN_ARGS)).toBe(BENIGN_ANSWER);
    expect(await js.run("(v) => ({ doubled: v * 2, list: [v], f: () => 1 })", [3])).toEqual({ doubled: 6, list: [3] });
    expect(await js.run("() => undefined", [])).toBeNull();
    await expect(js.run("(x) => {", [1])).rejects.toThrow(/SyntaxError/);
    await expect(js.run("() => { throw new Error('boom') }", [])).rejects.toThrow(new CodeExecutionError("Error: boom"));
    await expect(js.run("() => { const a = {}; a.a = a; return a }", [])).rejects.toThrow(/circular/i);
    expect(await liveIsolates(js)).toBe(0);
  });

  it("the constructor escape finds no process: no environment, no API key, no file system", async () => {
    process.env.MY_LLM_KEY = "sk-must-not-leak";
    try {
      const js = sandbox();
      await expect(js.run(`() => ${PROCESS}.env.MY_LLM_KEY`, [])).rejects.toThrow(/process is not defined/);
      expect(await js.run("() => [typeof process, typeof require, typeof globalThis.process, typeof fetch, typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof WebAssembly.instantiate]", [])).toEqual([
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "function",
      ]);
      expect(await js.run("() => JSON.stringify(globalThis).includes('sk-must-not-leak') || Object.getOwnPropertyNames(globalThis).some((n) => /^(process|require|module|Buffer|global)$/.test(n))", [])).toBe(false);
      await expect(js.run("() => import('node:fs')", [])).rejects.toThrow(/Not supported/);
      expect(await js.run(BENIGN, BENIGN_ARGS)).toBe(BENIGN_ANSWER);
    } finally {
      delete process.env.MY_LLM_KEY;
    }
  });

  it("cannot reach a server on 127.0.0.1", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const js = sandbox();
      const tries = [`() => fetch("http://127.0.0.1:${port}/")`, `() => new WebSocket("ws://127.0.0.1:${port}/")`, `() => ${PROCESS}.getBuiltinModule("net").connect(${port}, "127.0.0.1")`, `() => new XMLHttpRequest()`];
      for (const code of tries) await expect(js.run(code, [])).rejects.toThrow(CodeExecutionError);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("patching shared globals (prototypes, JSON, Math) changes nothing for the next call", async () => {
    const js = sandbox();
    const patch = `() => {
      Object.prototype.forged = 1;
      String.prototype.split = () => ["forged"];
      JSON.stringify = () => '"forged"';
      Math.random = () => 0;
      globalThis.args = ["forged", "forged"];
      return "patched";
    }`;
    expect(await js.run(patch, [])).toBe("patched");
    expect(await js.run(BENIGN, BENIGN_ARGS)).toBe(BENIGN_ANSWER);
    expect(await js.run("() => [({}).forged, 'a b'.split(' ')]", [])).toEqual([null, ["a", "b"]]);
  });

  it("an endless loop, or a promise chain that keeps going after the answer, stops at the time limit", async () => {
    const js = sandbox();
    await expect(js.run("() => { for (;;) {} }", [], { timeoutMs: 100 })).rejects.toThrow(/timed out after 100ms/);
    // Microtasks run before a call returns: work queued to go on after the answer is the call's own time.
    await expect(js.run("() => { const spin = () => Promise.resolve().then(spin); spin(); return 'returned'; }", [], { timeoutMs: 200 })).rejects.toThrow(/timed out after 200ms/);
    expect(await liveIsolates(js)).toBe(0);
    expect(await js.run(BENIGN, BENIGN_ARGS)).toBe(BENIGN_ANSWER);
  });

  it("an allocation bomb is stopped by the heap limit, and the engine's memory is not the isolate's", async () => {
    const js = sandbox();
    const rssBefore = process.memoryUsage().rss;
    await expect(js.run("() => { const a = []; for (;;) a.push(new Array(1e6).fill(1)) }", [], { timeoutMs: 20_000 })).rejects.toThrow(/memory limit/);
    await expect(js.run("() => { const a = []; for (let i = 0; i < 64; i++) a.push(new Uint8Array(64 * 1024 * 1024).fill(1)); return a.length }", [], { timeoutMs: 20_000 })).rejects.toThrow(CodeExecutionError);
    expect(await liveIsolates(js)).toBe(0);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
    expect(await js.run(BENIGN, BENIGN_ARGS)).toBe(BENIGN_ANSWER);
  }, 60_000);

  it("an aborted call stops at once with the signal's reason; close() stops calls in flight", async () => {
    const js = sandbox();
    const controller = new AbortController();
    const running = js.run("() => { for (;;) {} }", [], { timeoutMs: 30_000, signal: controller.signal });
    // In flight once its isolate is live: the loop has been handed to the isolate.
    await vi.waitFor(() => expect(js.liveIsolates()).toBe(1), { timeout: 10_000, interval: 5 });
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(await liveIsolates(js)).toBe(0);
    const inFlight = js.run("() => { for (;;) {} }", [], { timeoutMs: 30_000 });
    await vi.waitFor(() => expect(js.liveIsolates()).toBe(1), { timeout: 10_000, interval: 5 });
    js.close();
    await expect(inFlight).rejects.toThrow(CodeExecutionError);
    await expect(js.run(BENIGN, BENIGN_ARGS)).rejects.toThrow(/closed/);
  });
});
