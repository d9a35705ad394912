#!/usr/bin/env node
// The JavaScript sandbox's cost: what running a trainable function in a fresh isolated-vm isolate
// per call (JsSandbox.run) adds over running the same function in the engine, in-process (imports
// dist/). Run on the job thread's kind of thread: a worker thread.
//
//   1. per-call overhead: N sequential calls of a trivial function, after a warm-up, one event-loop
//      turn apart as a job's evaluations are (its target: js-sandbox-overhead in docs/performance.md);
//      and back to back, where the isolate made and the one disposed between calls are on the next
//      call's path
//   2. throughput of 8 concurrent calls at a time
//   3. no isolate left alive once the calls have returned
//
//   node bench/js-sandbox.mjs                 prints its own table (needs `npm run build`)
//   node bench/js-sandbox.mjs --json --dir D  prints {rows, notes, failures} as JSON (run-all.mjs)
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { fmt, printReport, scriptArgs } from "./report.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SEQUENTIAL = 300;
const WARMUP = 30;
const CONCURRENT = 200;
const TRIVIAL = "function emit(value) {\n  return value;\n}";

if (isMainThread) {
  const { asJson } = scriptArgs();
  const started = performance.now();
  const result = await new Promise((resolvePromise, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: {} });
    worker.once("message", resolvePromise);
    worker.once("error", reject);
  });
  printReport({ title: "trace-bench JavaScript sandbox benchmark", ...result, tookS: (performance.now() - started) / 1000, asJson });
} else {
  const { JsSandbox } = await import(join(ROOT, "dist/adapters/sandbox/js-sandbox.js"));
  const rows = [];
  const notes = [];
  let failures = 0;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
  const js = new JsSandbox();
  try {
    for (let i = 0; i < WARMUP; i++) await js.run(TRIVIAL, [i]);
    const sequential = async (apart) => {
      const times = [];
      for (let i = 0; i < SEQUENTIAL; i++) {
        if (apart) await new Promise((resolveTurn) => setImmediate(resolveTurn));
        const t = performance.now();
        const value = await js.run(TRIVIAL, [i]);
        times.push(performance.now() - t);
        if (value !== i) throw new Error(`call ${i} answered ${JSON.stringify(value)}`);
      }
      return times;
    };
    const times = await sequential(true);
    const backToBack = await sequential(false);
    // The same function run in the engine: what the call itself costs, without the sandbox.
    const own = new Function("args", `return (${TRIVIAL})(...args);`);
    const inEngine = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t = performance.now();
      JSON.parse(JSON.stringify(own([i])));
      inEngine.push(performance.now() - t);
    }
    const overhead = median(times) - median(inEngine);
    rows.push({ id: "1", measurement: `trivial function, a fresh isolate per call: overhead over the engine, median of ${SEQUENTIAL} calls one turn apart`, value: overhead, unit: "ms", digits: 2, key: "js-sandbox-overhead" });
    rows.push({ id: "1", measurement: `trivial function, a fresh isolate per call: p95 of ${SEQUENTIAL} calls one turn apart`, value: percentile(times, 95), unit: "ms", digits: 2, target: null });
    rows.push({ id: "1", measurement: `trivial function, a fresh isolate per call: median of ${SEQUENTIAL} calls back to back`, value: median(backToBack), unit: "ms", digits: 2, target: null });
    notes.push(`#1 sandboxed call min/median/p99/max: ${fmt(Math.min(...times), 2)} / ${fmt(median(times), 2)} / ${fmt(percentile(times, 99), 2)} / ${fmt(Math.max(...times), 2)} ms; in the engine: ${fmt(median(inEngine) * 1000, 1)} µs median`);
    const t = performance.now();
    for (let done = 0; done < CONCURRENT; done += 8) await Promise.all(Array.from({ length: 8 }, (_, k) => js.run(TRIVIAL, [done + k])));
    rows.push({ id: "2", measurement: `trivial function, 8 calls at a time, ${CONCURRENT} calls: throughput`, value: CONCURRENT / ((performance.now() - t) / 1000), unit: "calls/s", digits: 0, target: null });
    await new Promise((resolveTurn) => setImmediate(resolveTurn));
    rows.push({ id: "3", measurement: "isolates that ran code, alive after every call returned (one event-loop turn later)", value: js.liveIsolates(), unit: "isolates", digits: 0, key: "js-sandbox-live-isolates" });
  } catch (error) {
    failures += 1;
    rows.push({ id: "1", measurement: "JavaScript sandbox", unit: "ms", error: error instanceof Error ? error.message : String(error) });
  } finally {
    js.close();
  }
  parentPort.postMessage({ rows, notes, failures });
}
