/** The tests' Redis: a real server that answers, comes back after a restart on the same port, and is gone after stop. */
import { createConnection } from "node:net";
import { expect, test } from "vitest";
import { startRedis } from "../../support/redis-server.js";

function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, "127.0.0.1", () => socket.write("PING\r\n"));
    socket.once("data", (reply) => { resolve(reply.toString("utf8")); socket.end(); });
    socket.once("error", reject);
  });
}

test("starts, restarts on the same port and stops", async () => {
  const redis = await startRedis();
  try {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await ping(redis.port)).toBe("+PONG\r\n");
    await redis.restart();
    expect(await ping(redis.port)).toBe("+PONG\r\n");
  } finally {
    await redis.stop();
  }
  await expect(ping(redis.port)).rejects.toThrow(/ECONNREFUSED/);
});
