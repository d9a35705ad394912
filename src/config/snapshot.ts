/**
 * The config snapshot (spec §2.8): the resolved config in a fixed key order. It is written to
 * `meta/config.snapshot.yaml`, loads back as a config, and is what `run_id` and `config_hash` hash.
 */
import { computeRunId, sha256Hex } from "./hashing.js";
import { cloneValue } from "./kwargs.js";
import { canonicalJson, PyFloat } from "../codec/python-json.js";
import type { RunConfig } from "./run-config.js";

export type ConfigSnapshot = Record<string, unknown>;

export function configSnapshot(config: RunConfig): ConfigSnapshot {
  return {
    run_id: config.run_id,
    runs_dir: config.runs_dir,
    mode: config.mode,
    seeds: [...config.seeds],
    max_workers: config.max_workers,
    fail_fast: config.fail_fast,
    resume: config.resume,
    // The original stores float(job_timeout): 600 hashes as 600.0.
    job_timeout: config.job_timeout === null ? null : new PyFloat(config.job_timeout),
    tasks: config.tasks.map((t) => ({ id: t.id, eval_kwargs: cloneValue(t.eval_kwargs) })),
    llm: cloneValue(config.llm),
    tags: [...config.tags],
    trainers: config.trainers.map((t) => ({
      id: t.id,
      params_variants: cloneValue(t.params_variants),
      optimizer: t.optimizer,
      optimizer_kwargs: cloneValue(t.optimizer_kwargs),
      guide: t.guide,
      guide_kwargs: cloneValue(t.guide_kwargs),
      logger: t.logger,
      logger_kwargs: cloneValue(t.logger_kwargs),
    })),
    eval_kwargs: cloneValue(config.eval_kwargs),
    trainer_kwargs: cloneValue(config.trainer_kwargs),
    // Only when set, so a config without them snapshots (and hashes) as the original's does.
    ...(Object.values(config.budget).some((limit) => limit !== null) ? { budget: { ...config.budget } } : {}),
    ...(Object.keys(config.pricing).length > 0 ? { pricing: cloneValue(config.pricing) } : {}),
    ...(config.eval_workers !== null ? { eval_workers: config.eval_workers } : {}),
    ...(config.eval_memory_mb !== 4096 ? { eval_memory_mb: config.eval_memory_mb } : {}),
  };
}

function without(snapshot: ConfigSnapshot, keys: readonly string[]): ConfigSnapshot {
  return Object.fromEntries(Object.entries(snapshot).filter(([k]) => !keys.includes(k)));
}

/**
 * Snapshot keys that say how a run executes, not what it computes. Leaving them out of
 * `config_hash` lets a run interrupted at `--max-workers 2` be resumed at `--max-workers 8`.
 */
const EXECUTION_ONLY_KEYS = ["run_id", "runs_dir", "max_workers", "resume", "fail_fast", "budget", "pricing", "eval_workers", "eval_memory_mb"] as const;

/**
 * The same for the llm block and its role overrides: a run stopped by a rate limit or a budget
 * can be resumed with other limits. Budgets and prices (above) likewise.
 */
const EXECUTION_ONLY_LLM_KEYS = ["timeout_seconds", "max_retries", "max_concurrency", "requests_per_minute"] as const;

function withoutExecutionOnlyLlmKeys(llm: unknown): unknown {
  if (typeof llm !== "object" || llm === null || Array.isArray(llm)) return llm;
  const kept = without(llm as ConfigSnapshot, EXECUTION_ONLY_LLM_KEYS);
  for (const role of ["optimizer", "agent", "guide"]) {
    const overrides = kept[role];
    if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) continue;
    const rest = without(overrides as ConfigSnapshot, EXECUTION_ONLY_LLM_KEYS);
    // An override that only set limits is no override of what is computed.
    if (Object.keys(rest).length === 0) delete kept[role];
    else kept[role] = rest;
  }
  return kept;
}

/** Identifies "the same experiment": 16 hex characters over the snapshot's experiment-defining keys. */
export function computeConfigHash(snapshot: ConfigSnapshot): string {
  const experiment = without(snapshot, EXECUTION_ONLY_KEYS);
  if ("llm" in experiment) experiment.llm = withoutExecutionOnlyLlmKeys(experiment.llm);
  return sha256Hex(canonicalJson(experiment)).slice(0, 16);
}

/** A fresh run id for this snapshot (the snapshot's own run_id is not hashed). */
export function newRunId(snapshot: ConfigSnapshot, gitSha: string, now: Date): string {
  return computeRunId(without(snapshot, ["run_id"]), gitSha, now);
}
