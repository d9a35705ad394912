/**
 * The name a run's config goes by on the runs list and the dashboard: the base name of the file
 * `run` was given (the config format has no name key). A run's own snapshot, which Resume and
 * Retry failed run, names no experiment: it gives no name, and the one an earlier invocation
 * recorded stands.
 */
import { realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { RUN_FILES } from "../events/projections/run-files.js";

const realPath = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

export function configName(configPath: string, runDir: string): string | null {
  if (realPath(configPath) === realPath(join(runDir, RUN_FILES.config_snapshot))) return null;
  return basename(configPath);
}
