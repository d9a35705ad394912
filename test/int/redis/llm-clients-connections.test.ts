/**
 * `llmClients` with shared limits (a `--executor bullmq` worker's) connects to Redis before it
 * builds the clients; when building them fails (a missing API key), the caller gets no `close`, so
 * the connections must be ended there: Redis's own client list says whether they were.
 */
import { randomUUID } from "node:crypto";
import type { Redis as RedisClient } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { llmClients } from "../../../adapters/llm/index.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig } from "../../../src/config/run-config.js";
import { redisProbe, startRedis, type RedisServer } from "../../support/redis-server.js";

let redis: RedisServer;
let probe: RedisClient;
beforeAll(async () => {
  redis = await startRedis();
  probe = await redisProbe(redis.url);
});
afterAll(async () => {
  probe?.disconnect();
  await redis?.stop();
});

/** The limiter's connections Redis has open now (they name themselves). */
async function limiterConnections(): Promise<number> {
  const list = (await probe.client("LIST")) as string;
  return list.split("\n").filter((line) => line.includes("name=trace-bench-llm-limit")).length;
}

const config = resolveRunConfig(parseConfigText("c.yaml", `mode: real\ntasks: [internal:numeric_param]\nllm: {model: m, base_url: "http://127.0.0.1:9/v1", api_key_env: TB_TEST_KEY}\n`)).config;

describe("llmClients' shared-limit connections", () => {
  it("are open while the clients live and closed by their close()", async () => {
    const clients = await llmClients(config, { TB_TEST_KEY: "k" }, { sharedLimits: { redisUrl: redis.url, prefix: `test-${randomUUID()}` } });
    expect(await limiterConnections()).toBe(2);
    await clients.close?.();
    await vi.waitFor(async () => expect(await limiterConnections()).toBe(0), { timeout: 30_000, interval: 50 });
  });

  it("are closed when building the clients fails after connecting (no API key), and the error is the key's", async () => {
    await expect(llmClients(config, {}, { sharedLimits: { redisUrl: redis.url, prefix: `test-${randomUUID()}` } })).rejects.toThrow(/TB_TEST_KEY/);
    await vi.waitFor(async () => expect(await limiterConnections()).toBe(0), { timeout: 30_000, interval: 50 });
  });
});
