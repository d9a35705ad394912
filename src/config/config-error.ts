import * as Data from "effect/Data";

/**
 * A mistake in a config file or in the values given for it. `problems` are complete one-line
 * messages (file, key path, what was found, what is expected); the CLI prints them and exits 2.
 */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly problems: readonly string[] }> {
  override get message(): string {
    return this.problems.join("\n");
  }
}

/** A key path the way users write it: `trainers[1].params_variants[0].ps_steps`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? "(top level)" : out;
}

/** How a found value is shown in an error: short, typed, never a dump of a whole mapping. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === "object") return "a mapping";
  return String(value);
}
