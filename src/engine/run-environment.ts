/**
 * Facts about where a run executes, captured once per invocation into `RunStarted` so that
 * `meta/env.json`, `meta/git.json` and the llm columns are projections like everything else.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pythonUtcIso } from "../codec/python-datetime.js";
import { llmForModel, modelAxis } from "../config/model-axis.js";
import type { RunConfig } from "../config/run-config.js";
import type { LlmInfo } from "../events/event-schema.js";
import { isSecretName, REDACTED } from "../events/projections/artifact-format.js";
import { packageRoot } from "../fs/package-root.js";

const EXACT = new Set(["TRACE_DEFAULT_LLM_BACKEND", "TRACE_LITELLM_MODEL", "TRACE_CUSTOMLLM_MODEL", "TRACE_CUSTOMLLM_URL", "CUDA_VISIBLE_DEVICES", "PYTHONPATH", "NODE_OPTIONS"]);
const PREFIXES = ["TRACE_", "OPENAI_", "ANTHROPIC_", "AZURE_", "HF_", "HUGGINGFACE_", "OPENROUTER_"];

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** `meta/env.json`: the LLM-relevant environment with secret values redacted, and the runtime. */
export function captureEnvironment(env: NodeJS.ProcessEnv, now: Date): Record<string, unknown> {
  const names = Object.keys(env)
    .filter((name) => EXACT.has(name) || PREFIXES.some((p) => name.startsWith(p)))
    .sort();
  return {
    captured_at: pythonUtcIso(now),
    env: Object.fromEntries(names.map((name) => [name, isSecretName(name) ? REDACTED : env[name]])),
    runtime: { node_version: process.versions.node, platform: `${process.platform}-${process.arch}`, trace_bench_version: packageVersion() },
  };
}

function git(args: readonly string[], cwd: string): string | null {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || null;
  } catch {
    return null;
  }
}

/** `meta/git.json`: the trace-bench checkout's commit and branch (partial when not a git checkout). */
export function captureGit(cwd = packageRoot()): Record<string, unknown> {
  // One process asks all three (each costs tens of ms); a checkout without a commit fails it, and
  // then each is asked alone, so the record is as partial as the original's.
  const all = git(["rev-parse", "--show-toplevel", "HEAD", "--abbrev-ref", "HEAD"], cwd)?.split("\n");
  if (all?.length === 3 && all.every((line) => line !== "")) return { repo_root: all[0], commit: all[1], branch: all[2] };
  const root = git(["rev-parse", "--show-toplevel"], cwd);
  if (root === null) return {};
  const info: Record<string, unknown> = { repo_root: root };
  const commit = git(["rev-parse", "HEAD"], cwd);
  if (commit !== null) info.commit = commit;
  const branch = git(["rev-parse", "--abbrev-ref", "HEAD"], cwd);
  if (branch !== null) info.branch = branch;
  return info;
}

/**
 * The llm columns of spec §8.5, from the config's llm block and the environment. With a model
 * list (the model axis) a model that follows the list is "": each job's own is in its matrix entry.
 */
export function llmInfo(config: RunConfig, env: NodeJS.ProcessEnv): LlmInfo {
  const axis = modelAxis(config.llm).length > 0;
  if (config.mode === "stub") {
    const model = axis ? "" : "stub";
    return { llm_provider: "stub", llm_model: model, llm_base_url: "", llm_agent_model: model };
  }
  const llm = llmForModel(config.llm);
  // The optimizer's endpoint (llm.optimizer overrides the block), reported as the original reports the block.
  const role = llm.optimizer ?? {};
  const baseUrl = role.base_url ?? role.api_base ?? llm.base_url ?? llm.api_base ?? env.OPENAI_BASE_URL ?? env.OPENAI_API_BASE ?? "";
  const provider = role.provider ?? llm.provider ?? (baseUrl.includes("openrouter.ai") ? "openrouter" : baseUrl !== "" ? "openai" : "");
  const model = (endpoint: { model?: string | null } | null | undefined) => endpoint?.model ?? (axis ? "" : (llm.model ?? env.TRACE_LITELLM_MODEL ?? ""));
  return { llm_provider: provider, llm_model: model(llm.optimizer), llm_base_url: baseUrl, llm_agent_model: model(llm.agent) };
}

/** `git rev-parse HEAD` in the working directory, or "unknown": part of the run_id hash (spec §3.3). */
export function gitHeadSha(cwd = process.cwd()): string {
  return git(["rev-parse", "HEAD"], cwd) ?? "unknown";
}
