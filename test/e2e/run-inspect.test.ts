/**
 * `run --inspect WS-URL` streams every job actor's inspection events (registration, events,
 * snapshots, in @statelyai/inspect's format) to a WebSocket server, changes nothing the run
 * records, and neither blocks nor fails the run when the inspector is unreachable or goes away.
 */
import { join } from "node:path";
import { createMachine } from "xstate";
import { WebSocketServer } from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { writeFileSync } from "node:fs";
import { csvRows, eventsOf, FIXTURE_ENV, singleRunDir } from "../support/run-dir.js";

interface InspectionMessage {
  type: "@xstate.actor" | "@xstate.event" | "@xstate.snapshot";
  sessionId: string;
  name?: string;
  definition?: string;
  event?: { type: string; reason?: string };
  snapshot?: { value?: unknown; status?: string; context?: Record<string, unknown> };
}

/** A WebSocket server on 127.0.0.1 that keeps every message; `dropAfterFirst` closes each connection on its first message. */
async function inspectorServer(options: { dropAfterFirst?: boolean } = {}) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const messages: InspectionMessage[] = [];
  server.on("connection", (socket) => {
    socket.on("message", (data) => {
      messages.push(JSON.parse(data.toString()) as InspectionMessage);
      if (options.dropAfterFirst) socket.terminate();
    });
  });
  const { port } = server.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The 4-job stub matrix, two at a time, into a fresh runs dir. */
async function runMatrix(extra: readonly string[]) {
  const runs = tempDir();
  const args = ["run", "--config", "configs/m1_matrix_smoke.yaml", "--runs-dir", runs, "--max-workers", "2", ...extra];
  const r = await runCliAsync(args, { cwd: REPO_ROOT, env: process.env, timeoutMs: 45_000 });
  expect(r.code, describeRun(args.join(" "), r)).toBe(0);
  return { ...r, runDir: singleRunDir(runs) };
}

/** results.csv without what differs between any two runs (the run id, the wall-clock time). */
const comparableResults = (runDir: string) =>
  csvRows(join(runDir, "results.csv"))
    .map(({ run_id: _runId, time_seconds: _time, ...row }) => row)
    .sort((a, b) => a.job_id!.localeCompare(b.job_id!));

/** Each job's stream as event types and transitions (workers interleave jobs differently from run to run). */
function jobStreams(runDir: string): Record<string, string[]> {
  const streams: Record<string, string[]> = {};
  for (const e of eventsOf(runDir)) {
    if (e.job_id === null) continue;
    (streams[e.job_id] ??= []).push(e.type === "JobTransitioned" ? `${e.type}:${String(e.data.event)}->${String(e.data.to)}` : e.type);
  }
  return streams;
}

describe("trace-bench run --inspect", () => {
  it("streams registration, events and snapshots of every job actor, and records the same run as without it", async () => {
    const inspector = await inspectorServer();
    servers.push(inspector);
    const inspected = await runMatrix(["--inspect", inspector.url]);
    const plain = await runMatrix([]);

    const results = csvRows(join(inspected.runDir, "results.csv"));
    expect(results).toHaveLength(4);
    const actors = inspector.messages.filter((m) => m.type === "@xstate.actor");
    expect(actors.map((a) => a.name).sort()).toEqual(results.map((r) => r.job_id).sort());

    const log = eventsOf(inspected.runDir);
    for (const actor of actors) {
      const jobId = actor.name!;
      // The actor carries the job machine's definition, which XState reads back.
      const definition = JSON.parse(actor.definition!) as { id: string };
      expect(definition.id).toBe("job");
      expect(() => createMachine(definition as never)).not.toThrow();

      const own = inspector.messages.filter((m) => m.sessionId === actor.sessionId);
      // The events the actor received are the transitions the log committed, in order.
      const committed = log.filter((e) => e.job_id === jobId && e.type === "JobTransitioned").map((e) => String(e.data.event));
      expect(committed).toEqual(["START", "BUILT", "TRAINED", "EVALUATED"]);
      expect(own.filter((m) => m.type === "@xstate.event" && m.event!.type !== "xstate.init").map((m) => m.event!.type)).toEqual(committed);
      // Its snapshots walk the machine to the job's final state, the status results.csv reports.
      const values = own.filter((m) => m.type === "@xstate.snapshot").map((m) => m.snapshot!.value);
      expect(values).toEqual(["queued", "building", "training", "evaluating", "done"]);
      expect(results.find((r) => r.job_id === jobId)!.status).toBe("ok");
      expect(own.filter((m) => m.type === "@xstate.snapshot").at(-1)!.snapshot!.status).toBe("done");
    }

    expect(inspected.stderr).not.toContain("inspector");
    expect(comparableResults(inspected.runDir)).toEqual(comparableResults(plain.runDir));
    expect(jobStreams(inspected.runDir)).toEqual(jobStreams(plain.runDir));
  });

  it("goes on without an inspector that cannot be reached, says so once, and exits", async () => {
    const gone = await inspectorServer();
    await gone.close(); // a port nothing listens on any more
    const r = await runMatrix(["--inspect", gone.url]);
    const warnings = r.stderr.split("\n").filter((line) => line.includes("inspector"));
    // Refused, or on a starved machine the handshake's timer fires before the refusal is read: either way one line.
    const reason = `(connect ECONNREFUSED ${gone.url.slice("ws://".length)}|Opening handshake has timed out)`.replaceAll(".", "\\.");
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^trace-bench: warning: inspector ${gone.url.replaceAll(".", "\\.")} cannot be reached \\(${reason}\\); the run goes on without it$`))]);
    expect(csvRows(join(r.runDir, "results.csv")).map((row) => row.status)).toEqual(["ok", "ok", "ok", "ok"]);
  });

  it("goes on when the inspector drops the connection mid-run, and says so once", async () => {
    const flaky = await inspectorServer({ dropAfterFirst: true });
    servers.push(flaky);
    // Jobs that take a while, so that the connection drops while they run.
    const dir = tempDir();
    const config = join(dir, "slow.yaml");
    writeFileSync(config, "mode: stub\nseeds: [1, 2, 3]\nmax_workers: 1\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 150}}\ntrainers: [NoOpTrainer]\n");
    const args = ["run", "--config", config, "--runs-dir", join(dir, "runs"), "--inspect", flaky.url];
    const r = await runCliAsync(args, { cwd: REPO_ROOT, env: { ...process.env, ...FIXTURE_ENV }, timeoutMs: 45_000 });
    expect(r.code, describeRun(args.join(" "), r)).toBe(0);
    expect(flaky.messages.length).toBeGreaterThan(0);
    const warnings = r.stderr.split("\n").filter((line) => line.includes("inspector"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^trace-bench: warning: inspector ${flaky.url}: the connection closed \\(code \\d+\\); the run goes on without it$`));
    expect(csvRows(join(singleRunDir(join(dir, "runs")), "results.csv")).map((row) => row.status)).toEqual(["ok", "ok", "ok"]);
  });

  it("refuses a URL that is not ws:// or wss:// before the run starts", async () => {
    const runs = tempDir();
    const r = await runCli(["run", "--config", "configs/smoke.yaml", "--runs-dir", runs, "--inspect", "http://127.0.0.1:8080"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "trace-bench: --inspect takes a ws:// or wss:// URL, got 'http://127.0.0.1:8080' (given bare, it connects to ws://localhost:8080)\nRun 'trace-bench run --help' for usage.\n",
    );
  });
});
