/**
 * The loopback endpoint's socket folder after kill -9: the killed run cannot remove it, and the
 * next run that opens an endpoint removes it, because its owner (the pid and start time in its
 * name) is gone, while a live process's folder stays. The runs get a TMPDIR of their own, so the
 * folders they make are the test's to look at. The kill comes while the Python agent's request is
 * held by the scripted server (the endpoint is open then), never after a sleep.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ownedPrefix } from "../../src/llm/loopback-socket-sweep.js";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import { describeRun, runCliAsync } from "../support/crash-harness.js";
import { fakeOpenAiServers, type ServerStep } from "../support/fake-openai-server.js";
// @ts-expect-error: a plain JavaScript fixture without types
import { scriptedAnswer } from "../fixtures/suites/agent-llm-suite.mjs";

const SUITE = join(REPO_ROOT, "test", "fixtures", "suites", "python-agent-suite.mjs");
const server = fakeOpenAiServers();

function writeConfig(dir: string, baseURL: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(
    path,
    `mode: real\nllm: {model: test-model, base_url: "${baseURL}", api_key_env: FAKE_KEY}\n` +
      "tasks:\n  - id: pyagent:capitals\n    eval_kwargs: {examples: 2}\ntrainers:\n  - id: PrioritySearch\n    params_variants: [{ps_steps: 1}]\nseeds: [3]\n",
  );
  return path;
}

const socketFolders = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith("tb-llm-")).sort();

describe("the loopback socket folder of a run killed -9", () => {
  it("is left behind by the kill and removed by the next run's start; a live process's folder is kept", async () => {
    const dir = tempDir();
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const env = { ...process.env, TRACE_BENCH_TASK_MODULES: SUITE, FAKE_KEY: "sk-sweep-test", OPENAI_API_KEY: "", TMPDIR: tmp };
    // A folder of a live process (this test's): never removed.
    const live = `${ownedPrefix()}LiVe01`;
    mkdirSync(join(tmp, live));

    let holding = true;
    const isAgent = (body: Record<string, unknown>) => JSON.stringify(body.messages).includes("Question: what is the capital of");
    const s = await server([], { fallback: scriptedAnswer as ServerStep, hold: (body) => holding && isAgent(body) });
    const config = writeConfig(dir, s.baseURL);
    const killed = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "k"], { cwd: REPO_ROOT, env, timeoutMs: 180_000, killWhen: () => s.received.some((r) => r.held) });
    expect(killed.killedByTest, describeRun("run to be killed while the agent waits", killed)).toBe(true);
    const left = socketFolders(tmp).filter((name) => name !== live);
    expect(left, "the killed run's folder").toHaveLength(1);
    expect(left[0]).toMatch(/^tb-llm-\d+-\d+-/);
    expect(readdirSync(join(tmp, left[0]!)).some((name) => name.endsWith(".sock"))).toBe(true);

    holding = false;
    const next = await runCliAsync(["run", "--config", config, "--runs-dir", dir, "--run-id", "next"], { cwd: REPO_ROOT, env, timeoutMs: 180_000 });
    expect(next.code, describeRun("the next run", next)).toBe(0);
    expect(s.received.filter((r) => isAgent(r.body) && !r.held).length, "the next run's agent used its endpoint").toBeGreaterThan(0);
    // The killed run's folder is swept, the next run removed its own at exit, the live one stays.
    expect(socketFolders(tmp)).toEqual([live]);
  }, 400_000);
});
