/**
 * `trace-bench validate [--json]`: the validate verb (validate.ts) plus `--json`, which turns its
 * verdict lines into one JSON document on stdout:
 *
 *   {"ok", "exit_code", "config", "strict", "errors", "checks": [{"verdict", "subject", "detail", "text"}],
 *    "jobs": [{"job_id", "task_id", "trainer_id", "variant", "seed", "llm_model" (with a model list only)}], "manifest": path | null, "warnings": [...]}
 *
 * A config or usage error (exit 2) prints `{"ok": false, "exit_code": 2, "problems": [...]}` on
 * stdout as well as its usual lines on stderr. validate.ts keeps printing text; this wrapper reads
 * what it prints, so the checks have a single implementation.
 */
import { DEFAULT_VARIANT_LABEL } from "../config/variant-label.js";
import type { ParsedArgs, VerbSpec } from "./args.js";
import { JSON_FLAG } from "./common-flags.js";
import * as validate from "./validate.js";

export const spec: VerbSpec = {
  ...validate.spec,
  flags: {
    ...validate.spec.flags,
    json: { ...JSON_FLAG, description: 'Print one JSON document: {"ok", "exit_code", "checks": [{"verdict", "subject", "detail"}], "jobs", "manifest", "warnings"}.' },
  },
};

export interface ValidateCheck {
  readonly verdict: string;
  readonly subject: string;
  readonly detail: string | null;
  readonly text: string;
}

export interface ValidateReport {
  readonly ok: boolean;
  readonly exit_code: number;
  readonly config: string;
  readonly strict: boolean;
  readonly errors: number;
  readonly checks: ValidateCheck[];
  readonly jobs: { job_id: string; task_id: string; trainer_id: string; variant: string; seed: number | null; llm_model?: string }[];
  readonly manifest: string | null;
  readonly warnings: string[];
}

const VERDICT = /^\[([A-Z]+)\] (.*)$/;
const JOB = /^\s+job (\S+): (.+) x (\S+)(?: \[(.+?)\])? \(seed=([^,)]*)(?:, model=(.*))?\)$/;

/** validate's text output read back as a report. */
export function parseValidateOutput(stdout: string, stderr: string, exitCode: number, config: string, strict: boolean): ValidateReport {
  const checks: ValidateCheck[] = [];
  const jobs: ValidateReport["jobs"] = [];
  let manifest: string | null = null;
  for (const line of stdout.split("\n")) {
    const job = JOB.exec(line);
    if (job !== null) {
      const seed = Number(job[5]);
      jobs.push({ job_id: job[1]!, task_id: job[2]!, trainer_id: job[3]!, variant: job[4] ?? DEFAULT_VARIANT_LABEL, seed: Number.isFinite(seed) ? seed : null, ...(job[6] !== undefined ? { llm_model: job[6] } : {}) });
      continue;
    }
    const verdict = VERDICT.exec(line);
    if (verdict === null) continue;
    const text = verdict[2]!;
    const written = /^manifest written: (.*)$/.exec(text);
    if (written !== null) manifest = written[1]!;
    const colon = text.indexOf(": ");
    checks.push({
      verdict: verdict[1]!,
      subject: colon < 0 ? text : text.slice(0, colon),
      detail: colon < 0 ? null : text.slice(colon + 2),
      text,
    });
  }
  const warnings = stderr
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.replace(/^trace-bench: (warning: )?/, ""));
  return {
    ok: exitCode === 0,
    exit_code: exitCode,
    config,
    strict,
    errors: checks.filter((c) => c.verdict === "FAIL").length,
    checks,
    jobs,
    manifest,
    warnings,
  };
}

type Write = typeof process.stdout.write;

/** Runs `body` with stdout and stderr writes collected instead of printed. */
async function captured<T>(body: () => Promise<T>): Promise<{ value: T; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const collect = (into: string[]): Write =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      callback?.();
      return true;
    }) as Write;
  process.stdout.write = collect(out);
  process.stderr.write = collect(err);
  try {
    const value = await body();
    return { value, stdout: out.join(""), stderr: err.join("") };
  } catch (error) {
    (error as { capturedStderr?: string }).capturedStderr = err.join("");
    throw error;
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}

const USER_TAGS = new Set(["UsageError", "BenchSelectorError", "SandboxSettingError", "TaskModuleError", "TaskNotFoundError", "RunDirError"]);

/** The problems of an error main reports as the user's (exit 2), or undefined for any other error. */
function userProblems(error: unknown): string[] | undefined {
  const tag = (error as { _tag?: unknown } | null)?._tag;
  if (tag === "ConfigError") return [...(error as { problems: string[] }).problems];
  if (typeof tag === "string" && USER_TAGS.has(tag) && error instanceof Error) return [error.message];
  return undefined;
}

export async function execute(args: ParsedArgs): Promise<number> {
  if (args.flags.json !== true) return validate.execute(args);
  const config = args.flags.config as string;
  const strict = args.flags.strict === true;
  try {
    const { value: code, stdout, stderr } = await captured(() => validate.execute(args));
    process.stdout.write(`${JSON.stringify(parseValidateOutput(stdout, stderr, code, config, strict), null, 2)}\n`);
    return code;
  } catch (error) {
    const problems = userProblems(error);
    if (problems !== undefined) {
      const warnings = ((error as { capturedStderr?: string }).capturedStderr ?? "").split("\n").filter((l) => l.trim() !== "");
      process.stdout.write(`${JSON.stringify({ ok: false, exit_code: 2, config, strict, problems, warnings }, null, 2)}\n`);
    }
    throw error;
  }
}
