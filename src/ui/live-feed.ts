/**
 * Server-sent events: while a page is open, the runs are polled (a stat of each log, then only
 * the new events) every POLL_MS and what changed is pushed: `runs` (the runs list) to every page,
 * `run` (progress and each job's state) to the pages showing that run. A commit therefore reaches
 * the page well within a second, without reloading.
 */
import type { ServerResponse } from "node:http";
import type { RunsIndex } from "./runs-index.js";
import type { SecretFilter } from "./secret-filter.js";
import type { WatchedRun } from "./watched-run.js";

export const POLL_MS = 250;
/** New run folders are looked for less often than known logs are polled. */
const DISCOVER_MS = 1000;
const HEARTBEAT_MS = 15_000;

interface Client {
  readonly response: ServerResponse;
  /** The run this page shows (its folder relative to the runs dir), or null for the runs list alone. */
  readonly relDir: string | null;
}

export function runUpdate(run: WatchedRun) {
  return { rel_dir: run.relDir, last_seq: run.lastSeq, run: run.summary(), jobs: run.jobStates() };
}

export class LiveFeed {
  private readonly clients = new Set<Client>();
  private timer: NodeJS.Timeout | null = null;
  private lastDiscover = 0;
  private lastHeartbeat = Date.now();

  constructor(
    private readonly index: RunsIndex,
    private readonly filter: SecretFilter,
  ) {}

  /** Opens the stream: the current state at once, then changes. */
  subscribe(response: ServerResponse, relDir: string | null, watched: WatchedRun | null): void {
    response.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    response.write("retry: 1000\n\n");
    const client = { response, relDir };
    this.clients.add(client);
    response.on("close", () => {
      this.clients.delete(client);
      if (this.clients.size === 0) this.stop();
    });
    this.send(client, "runs", this.index.payload());
    if (watched !== null) this.send(client, "run", runUpdate(watched));
    this.timer ??= setInterval(() => this.tick(), POLL_MS);
  }

  private tick(): void {
    const now = Date.now();
    let changed: WatchedRun[];
    let removed = false;
    try {
      if (now - this.lastDiscover >= DISCOVER_MS) {
        this.lastDiscover = now;
        ({ changed, removed } = this.index.discover());
      } else {
        changed = this.index.refreshAll();
      }
    } catch {
      return; // a run dir vanished mid-poll: the next tick sees the new state
    }
    if (changed.length > 0 || removed) {
      const runs = this.index.payload();
      for (const client of this.clients) this.send(client, "runs", runs);
      const byDir = new Map(changed.map((r) => [r.relDir, r]));
      for (const client of this.clients) {
        const run = client.relDir === null ? undefined : byDir.get(client.relDir);
        if (run !== undefined) this.send(client, "run", runUpdate(run));
      }
    }
    if (now - this.lastHeartbeat >= HEARTBEAT_MS) {
      this.lastHeartbeat = now;
      for (const client of this.clients) client.response.write(": keep-alive\n\n");
    }
  }

  private send(client: Client, event: string, data: unknown): void {
    client.response.write(`event: ${event}\ndata: ${this.filter.json(data).toString("utf8")}\n\n`);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  close(): void {
    this.stop();
    for (const client of this.clients) client.response.end();
    this.clients.clear();
  }
}
