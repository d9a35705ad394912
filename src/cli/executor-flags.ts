/** `--executor` and `--redis` of `run`, and the config's `executor:`, checked before the run creates anything. */
import { UsageError, type FlagSpec, type ParsedArgs } from "./args.js";
import type { RunConfig } from "../config/run-config.js";

export const EXECUTOR_FLAG: FlagSpec = {
  type: "string",
  value: "KIND",
  choices: ["local", "bullmq"],
  description: "Where jobs run: local (this process, the default) or bullmq (queued in Redis for 'trace-bench worker' processes; this process stays the only writer of the log).",
};

export const REDIS_FLAG: FlagSpec = { type: "string", value: "URL", description: "The Redis of --executor bullmq, e.g. redis://127.0.0.1:6379 (default: the config's executor.redis)." };

/** Why `url` is not a Redis URL (null: it is). */
export function redisUrlProblem(url: string, where: string): string | null {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")) return `${where} takes a redis:// URL, e.g. redis://127.0.0.1:6379, got '${url}'`;
  return null;
}

/** The executor a run uses: the flags over the config's `executor:`; null = local. */
export function remoteExecutorOf(args: ParsedArgs, config: RunConfig): { readonly redis: string } | null {
  const kind = (args.flags.executor as string | undefined) ?? config.executor?.kind ?? "local";
  const flagRedis = args.flags.redis as string | undefined;
  if (kind === "local") {
    if (flagRedis !== undefined) throw new UsageError({ verb: "run", problem: "--redis is for --executor bullmq; add --executor bullmq or drop --redis" });
    return null;
  }
  const redis = flagRedis ?? config.executor?.redis ?? null;
  if (redis === null) throw new UsageError({ verb: "run", problem: "--executor bullmq needs a Redis: pass --redis redis://HOST:PORT or set executor.redis in the config" });
  const problem = redisUrlProblem(redis, flagRedis !== undefined ? "--redis" : "executor.redis");
  if (problem !== null) throw new UsageError({ verb: "run", problem });
  return { redis };
}
