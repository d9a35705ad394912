/**
 * The run verb's flags, in a module of their own: the CLI's main thread answers `run --help` and a
 * flag error from them before it starts the job thread or loads any of the verb's engine.
 */
import type { VerbSpec } from "./args.js";
import { CONFIG_FLAG, ROOT_FLAG, RUNS_DIR_FLAG } from "./common-flags.js";
import { MAX_JOBS_FLAG } from "./max-jobs-flag.js";
import { EXECUTOR_FLAG, REDIS_FLAG } from "./executor-flags.js";
import { DEFAULT_INSPECTOR_URL } from "../../adapters/inspector/default-inspector-url.js";

export const spec: VerbSpec = {
  name: "run",
  summary: "Run the job matrix of a config, recording every event, and write the run directory.",
  flags: {
    config: CONFIG_FLAG,
    root: ROOT_FLAG,
    "runs-dir": RUNS_DIR_FLAG,
    "max-workers": { type: "string", value: "N", aliases: ["n-concurrent"], description: "Jobs run at once (default: the config's max_workers)." },
    force: { type: "boolean", description: "Re-run every job, even ones an earlier run finished (resume none)." },
    resume: { type: "string", value: "MODE", choices: ["auto", "failed", "none"], description: "auto: re-run unfinished and failed jobs; failed: only failed ones; none: all. Default: the config's." },
    "job-timeout": { type: "string", value: "SECONDS", description: "Per-job time limit; 0 = none (default: config, else 0 in stub mode, 600 in real mode)." },
    logger: { type: "string", value: "NAME", description: "Logger for every trainer: ConsoleLogger (default), DefaultLogger, TensorboardLogger (event files in each job's tb/), NullLogger or none." },
    "run-id": { type: "string", value: "ID", description: "Write into (and resume) <runs-dir>/<ID>." },
    "max-jobs": MAX_JOBS_FLAG,
    executor: EXECUTOR_FLAG,
    redis: REDIS_FLAG,
    json: { type: "boolean", description: "Print the closing summary as one JSON object on stdout (run id, run dir, counts, file paths, tokens, cost); progress goes to stderr." },
    inspect: {
      type: "string",
      value: "WS-URL",
      bare: DEFAULT_INSPECTOR_URL,
      description: `Stream the job actors' inspection events to a Stately inspector at WS-URL (default ${DEFAULT_INSPECTOR_URL}, where @statelyai/inspect's relay listens).`,
    },
  },
};
