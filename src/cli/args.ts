/**
 * Flag parsing for the verbs: `node:util` parseArgs (strict) plus the Harbor-style aliases of
 * spec §1.1 and generated `--help` text. A wrong flag is a `UsageError` (exit 2).
 */
import { parseArgs } from "node:util";
import { didYouMean } from "../config/suggest.js";

/**
 * A plain tagged Error, not effect's `Data.TaggedError`: every verb parses its flags, and
 * effect/Data alone is some 60 modules that a quick verb (list-trainers) would load for nothing.
 * It is only thrown and caught by `main`, which tells user errors by `_tag`, never an Effect failure.
 */
export class UsageError extends Error {
  readonly _tag = "UsageError";
  readonly verb: string;
  readonly problem: string;

  constructor({ verb, problem }: { readonly verb: string; readonly problem: string }) {
    super(`${problem}\nRun 'trace-bench ${verb} --help' for usage.`);
    this.verb = verb;
    this.problem = problem;
  }
}
UsageError.prototype.name = "UsageError";

export interface FlagSpec {
  readonly type: "string" | "boolean";
  readonly description: string;
  /** Shown in help as the value's name, e.g. FILE. */
  readonly value?: string;
  readonly aliases?: readonly string[];
  readonly required?: boolean;
  /** Allowed values of a string flag. */
  readonly choices?: readonly string[];
  /** The value a string flag takes when given bare (`--inspect` alone, or before another flag). */
  readonly bare?: string;
}

export interface VerbSpec {
  readonly name: string;
  readonly summary: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Name of a positional argument, if the verb takes one. */
  readonly positional?: { readonly name: string; readonly description: string; readonly required: boolean; readonly max?: number };
}

export interface ParsedArgs {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly positional?: string;
  /** Every positional argument, for a verb that takes several (`positional.max`). */
  readonly positionals?: readonly string[];
  readonly help: boolean;
}

/** How help shows a string flag's value: `FILE`, or `[WS-URL]` when it may be left out. */
const valueLabel = (f: FlagSpec): string => (f.bare !== undefined ? `[${f.value ?? "VALUE"}]` : (f.value ?? "VALUE"));

export function verbHelp(spec: VerbSpec): string {
  const usageFlags = Object.entries(spec.flags)
    .map(([name, f]) => {
      const flag = f.type === "string" ? `--${name} ${valueLabel(f)}` : `--${name}`;
      return f.required ? flag : `[${flag}]`;
    })
    .join(" ");
  const positional = spec.positional ? (spec.positional.required ? ` <${spec.positional.name}>` : ` [${spec.positional.name}]`) : "";
  const lines = [`Usage: trace-bench ${spec.name}${positional} ${usageFlags}`.trimEnd(), "", spec.summary, ""];
  if (spec.positional) lines.push(`  ${spec.positional.name.padEnd(34)}${spec.positional.description}`);
  for (const [name, f] of Object.entries(spec.flags)) {
    const names = [`--${name}`, ...(f.aliases ?? []).map((a) => `--${a}`)].join(", ");
    const label = f.type === "string" ? `${names} ${valueLabel(f)}` : names;
    lines.push(`  ${label.padEnd(34)} ${f.description}`);
  }
  lines.push(`  ${"-h, --help".padEnd(34)} Show this help.`);
  return lines.join("\n");
}

export function parseVerbArgs(spec: VerbSpec, argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = { help: { type: "boolean", short: "h" } };
  for (const [name, f] of Object.entries(spec.flags)) {
    options[name] = { type: f.type };
    for (const alias of f.aliases ?? []) options[alias] = { type: f.type };
  }
  // A bare flag gets its value spelled out, so that parseArgs (which has no optional values) reads it.
  const args = argv.map((arg, i) => {
    const bare = arg.startsWith("--") ? spec.flags[arg.slice(2)]?.bare : undefined;
    const next = argv[i + 1];
    return bare !== undefined && (next === undefined || next.startsWith("-")) ? `${arg}=${bare}` : arg;
  });
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: spec.positional !== undefined });
  } catch (error) {
    const text = error instanceof Error ? error.message.split("\n")[0]!.replace(/\. To specify a positional.*$/, "") : String(error);
    const unknown = /^Unknown option '--([^']+)'/.exec(text)?.[1];
    const hint = unknown === undefined ? "" : didYouMean(unknown, Object.keys(options).filter((n) => n !== "help"), (n) => `--${n}`);
    throw new UsageError({ verb: spec.name, problem: `${text}${hint}` });
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help === true) return { flags: {}, help: true };
  const flags: Record<string, string | boolean | undefined> = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    const value = [name, ...(f.aliases ?? [])].map((n) => values[n]).find((v) => v !== undefined);
    if (f.required && value === undefined) throw new UsageError({ verb: spec.name, problem: `missing required flag --${name}` });
    if (f.choices && typeof value === "string" && !f.choices.includes(value)) {
      throw new UsageError({ verb: spec.name, problem: `--${name} must be one of ${f.choices.join(", ")}, got '${value}'` });
    }
    flags[name] = value;
  }
  const most = spec.positional?.max ?? 1;
  if (parsed.positionals.length > most) throw new UsageError({ verb: spec.name, problem: `unexpected argument '${parsed.positionals[most]}'` });
  const positional = parsed.positionals[0];
  if (spec.positional?.required && positional === undefined) {
    throw new UsageError({ verb: spec.name, problem: `missing <${spec.positional.name}>` });
  }
  return { flags, help: false, ...(positional !== undefined ? { positional } : {}), ...(most > 1 ? { positionals: parsed.positionals } : {}) };
}
