/**
 * A heavy adapter is loaded only by a run that uses it: `list-trainers` and a stub smoke run load
 * neither the OpenAI client, nor execa (the python worker pool), nor isolated-vm (the JavaScript
 * sandbox), nor the WebSocket inspector, nor hyparquet (HF and VeriBench Parquet data); a mode-real run loads openai, a task whose trainable
 * JavaScript runs in the sandbox loads isolated-vm, and `--inspect` loads the inspector (so each
 * "not loaded" below could fail).
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/cli.js";
import { describeRun } from "../support/crash-harness.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { csvRows, singleRunDir } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";
import { runCliTracingModules } from "../support/traced-cli.js";

const HEAVY = ["openai", "execa", "isolated-vm", "@statelyai/inspect", "ws", "hyparquet"] as const;

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function writeConfig(body: string): string {
  const path = join(tempDir(), "config.yaml");
  writeFileSync(path, body);
  return path;
}

/** A stub run of `config` into a fresh runs dir, traced; it must succeed. */
async function tracedRun(config: string, extra: readonly string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const runs = tempDir();
  const args = ["run", "--config", config, "--runs-dir", runs, ...extra];
  const r = await runCliTracingModules(args, env);
  expect(r.code, describeRun(args.join(" "), r)).toBe(0);
  return { ...r, rows: csvRows(join(singleRunDir(runs), "results.csv")) };
}

/** A ws:// URL on 127.0.0.1 where nothing listens. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `ws://127.0.0.1:${port}`;
}

describe("heavy adapters are loaded only when used", () => {
  it("list-trainers loads none of them, nor effect", async () => {
    const r = await runCliTracingModules(["list-trainers"]);
    expect(r.code, describeRun("list-trainers", r)).toBe(0);
    expect(r.stdout).toContain("PrioritySearch\tavailable");
    for (const name of HEAVY) expect(r.packages, name).not.toContain(name);
    // The quickest verb parses its flags without effect (~60 modules for its error class alone).
    expect(r.packages).not.toContain("effect");
  });

  it("a stub smoke run loads none of them", async () => {
    const r = await tracedRun("configs/smoke.yaml");
    expect(r.rows.map((row) => row.status)).toEqual(["ok"]);
    // The engine's own dependencies are there: the trace saw the run (effect is bundled, seen through the metafile).
    expect(r.packages).toContain("better-sqlite3");
    expect(r.packages).toContain("effect");
    for (const name of HEAVY) expect(r.packages, name).not.toContain(name);
  });

  it("a mode-real run loads the OpenAI client", async () => {
    const server = await startFakeOpenAiServer([], { fallback: () => xmlReply({ float0: 3 }) });
    servers.push(server);
    const config = writeConfig(
      `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n`,
    );
    const r = await tracedRun(config, [], { ...process.env, FAKE_KEY: "sk-test-lazy", OPENAI_API_KEY: "" });
    expect(r.rows.map((row) => row.status)).toEqual(["ok"]);
    expect(server.received.length).toBeGreaterThan(0);
    expect(r.packages).toContain("openai");
    expect(r.packages).not.toContain("execa");
  });

  it("a task whose trainable JavaScript runs in the sandbox loads isolated-vm, and no worker pool", async () => {
    const r = await tracedRun(writeConfig("mode: stub\ntasks: [trace_examples:greeting_stub]\ntrainers: [NoOpTrainer]\n"));
    expect(r.rows.map((row) => row.status)).toEqual(["ok"]);
    expect(r.packages).toContain("isolated-vm");
    expect(r.packages).not.toContain("execa");
    expect(r.packages).not.toContain("openai");
  });

  it("--inspect loads the inspector", async () => {
    const url = await closedPortUrl();
    const r = await tracedRun("configs/smoke.yaml", ["--inspect", url]);
    expect(r.stderr).toContain(`inspector ${url} cannot be reached`);
    expect(r.packages).toContain("@statelyai/inspect");
    expect(r.packages).toContain("ws");
    expect(r.packages).not.toContain("openai");
  });
});
