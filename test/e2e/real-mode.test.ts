import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, tempDir } from "../support/cli.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { csvRows, eventsOf, filesUnder } from "../support/run-dir.js";
import { xmlReply } from "../support/scripted-llm.js";

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The CLI as a child process without blocking this process (the fake server must keep answering). */
function runAsync(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("mode real: the openai client against an OpenAI-compatible server", () => {
  it("runs PrioritySearch through HTTP, meters the provider's tokens, and keeps the key out of every file", async () => {
    // numeric_param is a Trace model: OptoPrimeV2 by default, its float shown under its graph name.
    const server = await startFakeOpenAiServer([], { fallback: () => xmlReply({ float0: 3.0 }, "the target is 3") });
    servers.push(server);
    const dir = tempDir();
    const config = join(dir, "real.yaml");
    writeFileSync(
      config,
      `mode: real\nllm: {model: test-model, base_url: "${server.baseURL}", api_key_env: FAKE_KEY}\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\n`,
    );
    const secret = "sk-secret-never-on-disk";
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "real"], { FAKE_KEY: secret, OPENAI_API_KEY: "" });
    expect(r.code, r.stderr).toBe(0);
    // The preflight request, then the job's four.
    expect(server.received.length).toBe(5);
    expect(JSON.stringify(server.received[0]!.body.messages)).toContain("Reply with the word OK.");
    expect(server.received.every((q) => q.authorization === `Bearer ${secret}` && q.body.model === "test-model")).toBe(true);
    const prompt = String((server.received[1]!.body.messages as { content: string }[])[1]!.content);
    expect(prompt).toContain("# Code\neval0 = eval(self=NumericParamAgentModel0, value=float0, __code=__code0)\nbatchify0 = batchify(args_0=eval0)\n");
    expect(prompt).toContain('<variable name="float0" type="float">');

    const runDir = join(dir, "real");
    const [row] = csvRows(join(runDir, "results.csv"));
    expect(row).toMatchObject({ status: "ok", score_val_initial: "-3.0", score_val: "0.0", llm_provider: "openai", llm_model: "test-model", tokens_estimated: "False" });
    expect(Number(row!.total_tokens)).toBe(122 + 123 + 124 + 125);
    for (const [path, content] of filesUnder(runDir)) expect(content.includes(secret), path).toBe(false);
    for (const name of readdirSync(runDir).filter((n) => n.startsWith("events.db"))) expect(readFileSync(join(runDir, name)).includes(secret), name).toBe(false);
    const calls = eventsOf(runDir).filter((e) => e.type === "LlmCallCompleted");
    expect(calls.map((c) => c.data.estimated)).toEqual([false, false, false, false]);
  });

  it("says which variable is missing when there is no API key, exit 2", async () => {
    const dir = tempDir();
    const config = join(dir, "real.yaml");
    writeFileSync(config, "mode: real\nllm: {api_key_env: NOT_SET_ANYWHERE}\ntasks: [internal:numeric_param]\n");
    const r = await runAsync(["run", "--config", config, "--runs-dir", dir], { NOT_SET_ANYWHERE: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("environment variable NOT_SET_ANYWHERE");
    // Refused before anything is created: no run directory beside the config.
    expect(readdirSync(dir)).toEqual(["real.yaml"]);
  });
});
