/**
 * The environment candidate code runs with: the parent's, minus every secret. A variable is
 * dropped when its name looks like a credential (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, passwords)
 * or when it came from the working directory's `.env` file (whatever its name).
 */
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

const SECRET_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;

/** Names defined in `.env` (the CLI loads it into the environment at start). */
function dotEnvNames(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  try {
    return new Set(Object.keys(parseEnv(readFileSync(path, "utf8"))));
  } catch {
    return new Set();
  }
}

export function sandboxEnv(env: NodeJS.ProcessEnv, dotEnvPath = ".env"): Record<string, string> {
  const fromDotEnv = dotEnvNames(dotEnvPath);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name) || fromDotEnv.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}
