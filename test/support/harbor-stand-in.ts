/**
 * A stand-in `harbor` executable, written into a folder a test puts first on PATH. It records each
 * invocation's arguments (one JSON line per call in `calls.jsonl`), refuses arguments Harbor would
 * refuse, and writes what `harbor run` writes under `--jobs-dir`: `<job>/result.json`, a trial
 * folder `<task>__<id>/result.json` and the agent's `trajectory.json` (ATIF), in the shapes the
 * original's tests of its Harbor runner and ATIF reader use.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli.js";

export interface HarborBehaviour {
  /** What the run does: write results, hang until killed, or exit with an error. */
  readonly outcome: "results" | "hang" | { readonly exitCode: number; readonly stderr: string };
  /** The job's result.json text (written as given: a malformed file is a string that is not JSON). */
  readonly jobResult?: string;
  /** The trial's result.json text. */
  readonly trialResult?: string;
  /** The trajectory.json payload, or none. */
  readonly trajectory?: unknown;
  /** Exit 2 with "No such option" for `--task-name` (an older Harbor 0.6 build). */
  readonly onlyIncludeTaskName?: boolean;
  /**
   * Before writing results, make this many chat requests to `$OPENAI_BASE_URL/chat/completions` with
   * `$OPENAI_API_KEY`, as Harbor's LiteLLM does for the agent; each reply's text goes into the
   * trajectory's last step. A request that fails ends the run with exit 1.
   */
  readonly llmCalls?: number;
}

export interface HarborStandIn {
  /** The folder holding `harbor`: put it first on PATH. */
  readonly bin: string;
  /** The argument lists and LLM-related environment each call had. */
  calls(): { args: string[]; env: Record<string, string | null> }[];
  /** The replies each call got to its LLM requests (`llmCalls`), one list per call that made some. */
  replies(): string[][];
}

const REQUIRED = ["--job-name", "--jobs-dir", "--model", "--env", "--n-concurrent"];

export function harborStandIn(behaviour: HarborBehaviour): HarborStandIn {
  const bin = tempDir("harbor-stand-in-");
  const log = join(bin, "calls.jsonl");
  const script = `#!${process.execPath}
const fs = require("node:fs");
const path = require("node:path");
const behaviour = ${JSON.stringify(behaviour)};
const args = process.argv.slice(2);
const watched = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "PYTHONPATH", "SECRET_OF_THE_ENGINE"];
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, env: Object.fromEntries(watched.map((k) => [k, process.env[k] ?? null])) }) + "\\n");
const value = (flag) => { const i = args.indexOf(flag); return i < 0 ? undefined : args[i + 1]; };
const fail = (code, text) => { process.stderr.write(text + "\\n"); process.exit(code); };
if (args[0] !== "run") fail(2, "Usage: harbor run [OPTIONS]");
for (const flag of ${JSON.stringify(REQUIRED)}) if (value(flag) === undefined) fail(2, "Missing option " + flag);
if (behaviour.onlyIncludeTaskName && args.includes("--task-name")) fail(2, "Error: No such option: --task-name");
if (!args.includes("--path") && value("--task-name") === undefined && value("--include-task-name") === undefined) fail(2, "Missing option --task-name");
const importPath = value("--agent-import-path");
if (importPath !== undefined) {
  const moduleName = importPath.split(":")[0];
  const found = (process.env.PYTHONPATH || "").split(":").some((dir) => dir && fs.existsSync(path.join(dir, moduleName + ".py")));
  if (!found) fail(1, "ModuleNotFoundError: No module named '" + moduleName + "'");
}
const kwargs = args.flatMap((a, i) => (a === "--agent-kwarg" ? [args[i + 1]] : []));
const template = kwargs.find((k) => k.startsWith("prompt_template_path="));
if (template === undefined || !fs.existsSync(template.slice("prompt_template_path=".length))) fail(1, "the agent's prompt_template_path is missing");
if (typeof behaviour.outcome === "object") fail(behaviour.outcome.exitCode, behaviour.outcome.stderr);
// A Harbor stuck on its sandbox: runs until it is killed.
if (behaviour.outcome === "hang") setInterval(() => {}, 1000);
else callLlm().then(writeResults, (error) => fail(1, "litellm.APIConnectionError: " + error.message));
async function callLlm() {
  const replies = [];
  for (let turn = 1; turn <= (behaviour.llmCalls || 0); turn++) {
    const response = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
      body: JSON.stringify({ model: value("--model"), max_tokens: 64, messages: [{ role: "user", content: "harbor agent turn " + turn + " of " + value("--job-name") }] }),
    });
    if (!response.ok) throw new Error("HTTP " + response.status + ": " + (await response.text()));
    replies.push((await response.json()).choices[0].message.content);
  }
  if (replies.length > 0) fs.appendFileSync(${JSON.stringify(join(bin, "llm.jsonl"))}, JSON.stringify(replies) + "\\n");
}
function writeResults() {
const job = path.join(value("--jobs-dir"), value("--job-name"));
const task = value("--task-name") || value("--include-task-name") || "local-task";
const trial = path.join(job, task + "__abc123");
fs.mkdirSync(path.join(trial, "agent"), { recursive: true });
if (behaviour.jobResult !== undefined) fs.writeFileSync(path.join(job, "result.json"), behaviour.jobResult);
if (behaviour.trialResult !== undefined) fs.writeFileSync(path.join(trial, "result.json"), behaviour.trialResult);
if (behaviour.trajectory !== undefined) fs.writeFileSync(path.join(trial, "agent", "trajectory.json"), JSON.stringify(behaviour.trajectory));
process.stdout.write("1/1 trials done\\n");
}
`;
  const harbor = join(bin, "harbor");
  writeFileSync(harbor, script);
  chmodSync(harbor, 0o755);
  return {
    bin,
    replies: () => (existsSync(join(bin, "llm.jsonl")) ? readFileSync(join(bin, "llm.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as string[]) : []),
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { args: string[]; env: Record<string, string | null> }) : []),
  };
}
