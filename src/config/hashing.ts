/**
 * Identities: `job_id`, `run_id` and `config_hash`, all SHA-256 over Python-compatible canonical
 * JSON so ids agree with the Python Trace-Bench (spec §3.3).
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../codec/python-json.js";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export interface JobIdentity {
  readonly task_id: string;
  readonly trainer_id: string;
  readonly resolved_kwargs: unknown;
  readonly seed: number;
  /** The job's model, only when the config lists several (so single-model ids stay the original's). */
  readonly llm_model?: string;
}

/** First 12 hex characters of SHA-256 of the canonical job payload. */
export function computeJobId(identity: JobIdentity): string {
  const { task_id, trainer_id, resolved_kwargs, seed, llm_model } = identity;
  return sha256Hex(canonicalJson({ task_id, trainer_id, resolved_kwargs, seed, ...(llm_model !== undefined ? { llm_model } : {}) })).slice(0, 12);
}

/**
 * `computeJobId` of each seed of one cell (task, trainer, resolved kwargs, model): the cell's part
 * of the canonical payload is serialized once, not once per seed (a 50,000-seed cell's kwargs were
 * serialized 50,000 times). The payload's keys in canonical order: llm_model, resolved_kwargs,
 * seed, task_id, trainer_id.
 */
export function jobIdsOfCell(cell: Omit<JobIdentity, "seed">): (seed: number) => string {
  const { task_id, trainer_id, resolved_kwargs, llm_model } = cell;
  // One key's `"key": value`, as canonicalJson writes it inside an object.
  const entry = (key: string, value: unknown) => canonicalJson({ [key]: value }).slice(1, -1);
  const head = `{${llm_model !== undefined ? `${entry("llm_model", llm_model)}, ` : ""}${entry("resolved_kwargs", resolved_kwargs)}, `;
  const tail = `, ${entry("task_id", task_id)}, ${entry("trainer_id", trainer_id)}}`;
  return (seed) => sha256Hex(`${head}${entry("seed", seed)}${tail}`).slice(0, 12);
}

/** `YYYYMMDD-HHMMSS` in UTC. */
export function utcStamp(now: Date): string {
  const iso = now.toISOString(); // 2026-11-21T18:04:43.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/**
 * `<UTC stamp>-<8 hex>`: the suffix hashes the config snapshot (without run_id) and the git commit
 * of the working directory, so the same config at the same commit gets the same suffix.
 */
export function computeRunId(snapshotWithoutRunId: unknown, gitSha: string, now: Date): string {
  const suffix = sha256Hex(canonicalJson({ config: snapshotWithoutRunId, git: gitSha })).slice(0, 8);
  return `${utcStamp(now)}-${suffix}`;
}
