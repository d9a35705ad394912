/**
 * Whether candidate code runs in the bubblewrap sandbox (the default) or, where a machine cannot
 * make namespaces, unconfined: `TRACE_BENCH_SANDBOX=off`, said loudly on stderr once per process,
 * never chosen silently. Any other value is refused.
 */
import * as Data from "effect/Data";

export type SandboxMode = "bubblewrap" | "off";

export const SANDBOX_VARIABLE = "TRACE_BENCH_SANDBOX";

/** A user error (one line, exit 2): the CLI checks the setting before it plans anything. */
export class SandboxSettingError extends Data.TaggedError("SandboxSettingError")<{ readonly value: string }> {
  override get message(): string {
    return `${SANDBOX_VARIABLE}=${JSON.stringify(this.value)} is not a sandbox: use 'bubblewrap' (the default) or 'off'`;
  }
}

export function sandboxMode(env: NodeJS.ProcessEnv = process.env): SandboxMode {
  const value = (env[SANDBOX_VARIABLE] ?? "").trim();
  if (value === "" || value === "bubblewrap") return "bubblewrap";
  if (value === "off") return "off";
  throw new SandboxSettingError({ value });
}

let warned = false;

/** The warning a run with the sandbox off prints, once. */
export function warnSandboxOff(write: (text: string) => void = (text) => process.stderr.write(text)): void {
  if (warned) return;
  warned = true;
  write(
    `WARNING: ${SANDBOX_VARIABLE}=off: candidate code (written by an LLM in mode real) runs UNCONFINED, as this user: ` +
      "it can read and write your files, reach the network and signal your processes; only its environment is filtered. " +
      `Install bubblewrap and unset ${SANDBOX_VARIABLE} to confine it.\n`,
  );
}
