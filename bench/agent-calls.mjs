#!/usr/bin/env node
// Concurrent agent calls (issue 35): one evaluation of 100 examples whose agent calls the LLM once
// each, against a scripted OpenAI-compatible server on 127.0.0.1 that answers every request after
// 200 ms. In-process (imports dist/): the evaluation (`scoreDataset`) with the job's task calls
// (`TaskCalls` on `JobCalls`: each call recorded before it is sent and after, with its slot), the
// real `openai` client and the run's request limiter, at 1 and at 10 examples at once. The facts
// go to an in-memory recorder, not SQLite: the row measures the calls' concurrency, not the log.
//
//   node bench/agent-calls.mjs                 prints its own table (needs `npm run build`)
//   node bench/agent-calls.mjs --json --dir D  one JSON line {rows, notes, failures} for run-all.mjs
//
// Target (issue 35, docs/performance.md key agent-calls-10): ≤ 2.5 s at concurrency 10; the ideal is
// 100 × 200 ms / 10 = 2 s.
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { printReport, scriptArgs } from "./report.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const EXAMPLES = 100;
const DELAY_MS = 200;
const { asJson } = scriptArgs();

const { JobCalls } = await import(join(ROOT, "dist/src/llm/job-calls.js"));
const { RunCalls } = await import(join(ROOT, "dist/src/llm/run-calls.js"));
const { TaskCalls } = await import(join(ROOT, "dist/src/llm/task-calls.js"));
const { createRequestLimiter } = await import(join(ROOT, "dist/src/llm/request-limiter.js"));
const { createOpenAiLlm } = await import(join(ROOT, "dist/adapters/llm/openai-llm.js"));
const { scoreDataset } = await import(join(ROOT, "dist/src/tasks/score-dataset.js"));
const suiteModule = await import(join(ROOT, "test/fixtures/suites/agent-llm-suite.mjs"));
const { scriptedAnswer, scriptedUsage } = suiteModule;

/** The scripted server: every answer after DELAY_MS, from the request alone. */
async function startServer() {
  let received = 0;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      received += 1;
      const body = JSON.parse(text || "{}");
      setTimeout(() => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ id: `c${received}`, object: "chat.completion", created: 0, model: String(body.model), choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: scriptedAnswer(body) } }], usage: scriptedUsage(body) }));
      }, DELAY_MS);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { baseURL: `http://127.0.0.1:${server.address().port}/v1`, received: () => received, close: () => new Promise((r) => server.close(r)) };
}

/** One evaluation of the 100 examples at `concurrency`: its wall time, the server's count and the calls recorded. */
async function evaluation(baseURL, concurrency) {
  const bundle = suiteModule.default.load("agentqa:many", { examples: EXAMPLES });
  const facts = [];
  const calls = new JobCalls({
    attempt: 1,
    run: new RunCalls({ journaling: true, price: () => 0, budget: {} }),
    record: (batch) => facts.push(...batch),
    journal: { entries: [], unanswered: [] },
    replies: new Map(),
    onBudgetExhausted: () => {},
  });
  // The run's limiter, as llm.max_concurrency: 10 makes it.
  const client = createOpenAiLlm({ apiKey: "bench", model: "bench-model", baseURL, maxRetries: 0, limiter: createRequestLimiter({ maxConcurrency: 10 }) });
  const taskCalls = new TaskCalls(calls, () => client, false);
  const values = { instructions: "Answer with the city's name only." };
  const split = { name: "train_dataset", dataset: bundle.train_dataset };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const score = await scoreDataset(bundle, values, split, {}, { concurrency, llmFor: taskCalls.nextBatch() });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, score: score.score, started: facts.filter((f) => f.type === "LlmCallStarted").length, completed: facts.filter((f) => f.type === "LlmCallCompleted").length };
}

const t0 = performance.now();
const rows = [];
const notes = [];
let failures = 0;
const server = await startServer();
try {
  // A first evaluation warms the client and the connections (not measured).
  await evaluation(server.baseURL, 10);
  // The target of row 1 is docs/performance.md's (## Targets, key agent-calls-10).
  for (const [id, concurrency, key] of [["1", 10, "agent-calls-10"], ["2", 1, undefined]]) {
    try {
      const before = server.received();
      const r = await evaluation(server.baseURL, concurrency);
      const sent = server.received() - before;
      if (r.score !== 1 || r.started !== EXAMPLES || r.completed !== EXAMPLES || sent !== EXAMPLES) throw new Error(`expected ${EXAMPLES} calls recorded and sent and a score of 1; got score ${r.score}, ${r.started} started, ${r.completed} completed, ${sent} sent`);
      rows.push({ id, measurement: `${EXAMPLES} examples, one agent call each, server ${DELAY_MS} ms, ${concurrency} at once`, value: r.seconds, unit: "s", digits: 2, ...(key !== undefined ? { key } : {}) });
      // This process's CPU (the server's included): on a busy machine, wall time past the ideal waits for a CPU.
      rows.push({ id: `${id}.cpu`, measurement: `  of which CPU time of the process (client, recording and server)`, value: r.cpuSeconds, unit: "s", digits: 2 });
    } catch (error) {
      failures += 1;
      rows.push({ id, measurement: `${EXAMPLES} examples at ${concurrency} at once`, unit: "s", error: error instanceof Error ? error.message : String(error) });
    }
  }
} finally {
  await server.close();
}
notes.push(`ideal at 10 at once: ${EXAMPLES} x ${DELAY_MS} ms / 10 = ${(EXAMPLES * DELAY_MS) / 10 / 1000} s; every call recorded (Started, Completed) on the job's path, to memory rather than SQLite`);
printReport({ title: "Concurrent agent calls (bench/agent-calls.mjs)", rows, notes, failures, tookS: (performance.now() - t0) / 1000, asJson });
