/**
 * The run dir's folder of saved answers to re-runs with nothing to do (cli/answered-rerun.ts): a
 * cache beside the log, derived from it and checked against it before use. Not the writer's
 * `.tmp/`, which every writer empties, so that an answer outlives a `replay`. Named here, apart,
 * so that the CLI's main thread and the strays' allow-list (run-dir-strays.ts) share it cheaply.
 */
export const RERUN_ANSWERS_DIR = ".rerun-answers";
