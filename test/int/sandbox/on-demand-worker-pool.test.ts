/**
 * The on-demand pool loads its code on the first request, which leaves a moment between asking
 * and spawning: a close() in that moment must still stop the request and leave no worker, as it
 * does for a request already at a worker.
 */
import { describe, expect, it } from "vitest";
import { OnDemandWorkerPool } from "../../../adapters/sandbox/on-demand-worker-pool.js";

/** A worker that says it is ready, then echoes each request. */
const ECHO = `const rl = require("readline").createInterface({ input: process.stdin });
console.log(JSON.stringify({ ready: true }));
rl.on("line", (line) => console.log(JSON.stringify({ ok: true, echo: JSON.parse(line) })));`;

const echoPool = () => new OnDemandWorkerPool({ command: process.execPath, args: () => ["-e", ECHO], size: 1, env: {} });

describe("the on-demand worker pool", () => {
  it("answers through a worker it starts on the first request", async () => {
    const pool = echoPool();
    expect(pool.pids()).toEqual([]);
    try {
      expect(await pool.request({ message: { n: 1 }, hardTimeoutMs: 10_000 })).toEqual({ ok: true, echo: { n: 1 } });
      expect(pool.pids()).toHaveLength(1);
    } finally {
      pool.close();
    }
    expect(pool.pids()).toEqual([]);
  });

  it("a request still waiting for the pool's code when close() comes fails 'closed' and starts no worker; so does a later one", async () => {
    const pool = echoPool();
    const waiting = pool.request({ message: { n: 1 }, hardTimeoutMs: 10_000 });
    pool.close();
    await expect(waiting).rejects.toMatchObject({ name: "WorkerFailure", kind: "closed" });
    expect(pool.pids()).toEqual([]);
    await expect(pool.request({ message: { n: 2 }, hardTimeoutMs: 10_000 })).rejects.toMatchObject({ kind: "closed" });
    expect(pool.pids()).toEqual([]);
  });
});
