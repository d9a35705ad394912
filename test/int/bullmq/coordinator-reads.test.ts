/**
 * The coordinator's transport on a real Redis: the requests it reads together are answered together,
 * the batches among them committed as one group; a claim of a job whose batch waits in that group
 * commits the group first (the claim hands out the job's stream as committed), while a claim of any
 * other job does not break the group. The inbox is a recording stand-in: what is tested is the order
 * in which the transport asks it, and that every request is answered under its own id.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bullmqCoordinator } from "../../../adapters/bullmq/bullmq-transport.js";
import type { BatchAck, CoordinatorInbox, EventBatch, Handout, WorkerRequest } from "../../../src/executor/executor-protocol.js";
import { startRedis, type RedisServer } from "../../support/redis-server.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const RUN = "reads-run";
const claim = (jobId: string): WorkerRequest => ({ kind: "claim", ticket: { runId: RUN, jobId, attempt: 1, invocation: 1 }, delivery: `d-${jobId}` });
const batch = (jobId: string): WorkerRequest => ({
  kind: "batch",
  batch: { runId: RUN, jobId, attempt: 1, invocation: 1, delivery: `d-${jobId}`, seq: 1, expectedVersion: 0, events: [], contents: [] },
});

it("commits the batches of one read as a group, first committing it when a claim of one of its jobs follows", async () => {
  const calls: string[] = [];
  const inbox: CoordinatorInbox = {
    claim: (ticket) => {
      calls.push(`claim ${ticket.jobId}`);
      return { kind: "nothing", why: `claimed ${ticket.jobId}` } satisfies Handout;
    },
    commit: () => {
      throw new Error("the transport commits what it read together through commitAll");
    },
    commitAll: (batches: readonly EventBatch[]) => {
      calls.push(`commit ${batches.map((b) => b.jobId).join(",")}`);
      return batches.map((b): BatchAck => ({ ok: false, reason: `answered ${b.jobId}` }));
    },
  };
  const transport = bullmqCoordinator(redis.url, () => {});
  const client = new Redis(redis.url);
  try {
    await transport.serve(RUN, inbox);
    const requests = [batch("j1"), batch("j2"), claim("j3"), claim("j1"), batch("j3"), batch("j4")];
    // One transaction: the coordinator's blocked read wakes once it ran, and reads them all at once.
    const multi = client.multi();
    requests.forEach((request, i) => multi.xadd(`trace-bench:inbox:${RUN}`, "*", "id", `r${i}`, "to", "w1", "body", JSON.stringify(request)));
    await multi.exec();
    const answers = new Map<string, string>();
    for (let last = "0"; answers.size < requests.length; ) {
      const read = (await client.xread("BLOCK", 5_000, "STREAMS", "trace-bench:reply:w1", last)) as [string, [string, string[]][]][] | null;
      expect(read, "every request is answered").not.toBeNull();
      for (const [id, fields] of read![0]![1]) {
        last = id;
        answers.set(fields[1]!, fields[3]!);
      }
    }
    expect(calls).toEqual(["claim j3", "commit j1,j2", "claim j1", "commit j3,j4"]);
    expect(requests.map((_, i) => JSON.parse(answers.get(`r${i}`)!) as unknown)).toEqual([
      { ok: false, reason: "answered j1" },
      { ok: false, reason: "answered j2" },
      { kind: "nothing", why: "claimed j3" },
      { kind: "nothing", why: "claimed j1" },
      { ok: false, reason: "answered j3" },
      { ok: false, reason: "answered j4" },
    ]);
  } finally {
    client.disconnect();
    await transport.close();
  }
}, 60_000);
