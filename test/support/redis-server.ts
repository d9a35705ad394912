/**
 * A real `redis-server` (Debian's) for the tests, on a free loopback port, with no persistence and
 * its own temp dir. `restart()` stops it and starts it again on the same port (a Redis restarted
 * mid-run); `stop()` ends it. Readiness is the server's own "Ready to accept connections" line, so
 * nothing waits on a fixed sleep.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stop it and start it again on the same port; resolves once it accepts connections again. */
  restart(): Promise<void>;
  /** End the server and remove its dir. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the kernel's pick for an ephemeral bind). */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "notice"], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString("utf8");
      if (seen.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.resume();
    child.once("error", (error) => reject(new Error(`redis-server could not start (install Debian's redis-server): ${error.message}`)));
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code} before it was ready: ${seen.trim().split("\n").slice(-3).join(" | ")}`)));
  });
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Start a private `redis-server` on a free loopback port. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "tb-redis-"));
  const port = await freeLoopbackPort();
  let child = await launch(port, dir);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await ended(child);
      child = await launch(port, dir);
    },
    async stop() {
      await ended(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A client for a test's own looks into `url`'s Redis (its client list, its keys): it waits for the
 * connection rather than failing commands, and keeps quiet while a restart has Redis down.
 */
export async function redisProbe(url: string): Promise<import("ioredis").Redis> {
  const { Redis } = await import("ioredis");
  const probe = new Redis(url, { maxRetriesPerRequest: null });
  probe.on("error", () => {});
  return probe;
}
