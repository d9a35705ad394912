/**
 * `RunConfig`: a config file with every alias resolved and every default filled in (spec §2).
 */
import * as Either from "effect/Either";
import * as Schema from "effect/Schema";
import { compactByKind, listNames, NAMES_SHOWN } from "./compact-report.js";
import { RawConfigSchema, KNOWN_KEYS } from "./config-schema.js";
import { ConfigError, describeFound, formatKeyPath } from "./config-error.js";
import { readConfigFile, type ConfigSource } from "./config-file.js";
import { cloneValue, isKwargs, mergeKwargs, toPlain, type Kwargs } from "./kwargs.js";
import { legacyKnobName } from "./legacy-knobs.js";
import { pythonStr } from "../codec/python-json.js";
import { schemaProblems } from "./schema-problems.js";
import { closestName } from "./suggest.js";

export type Mode = "stub" | "real";
export type ResumeMode = "auto" | "failed" | "none";

export interface TaskEntry {
  readonly id: string;
  readonly eval_kwargs: Kwargs;
}

export interface TrainerEntry {
  readonly id: string;
  readonly params_variants: readonly Kwargs[];
  readonly optimizer: string | null;
  /** A mapping, or a list of mappings (one optimizer per parameter group). */
  readonly optimizer_kwargs: Kwargs | readonly Kwargs[];
  readonly guide: string | null;
  readonly guide_kwargs: Kwargs;
  readonly logger: string | null;
  readonly logger_kwargs: Kwargs;
}

/**
 * One role's LLM as the config gives it; absent keys mean "the llm block's, else the default"
 * (defaults are applied by `src/llm/llm-roles.ts`, so the snapshot holds only what was written).
 */
export interface LlmEndpointConfig {
  readonly provider?: string | null;
  readonly model?: string | null;
  readonly base_url?: string | null;
  readonly api_base?: string | null;
  readonly api_key_env?: string | null;
  /** Seconds per call (default 120). */
  readonly timeout_seconds?: number;
  /** Default 5. */
  readonly max_retries?: number;
  /** Requests in flight per model, shared by all jobs (default 8). */
  readonly max_concurrency?: number;
  /** Per model, shared by all jobs; null = no limit (the default; on a role, it overrides the llm block's limit). */
  readonly requests_per_minute?: number | null;
}

/** The llm block as written: its `model` may list several models (the model axis, see model-axis.ts). */
export interface LlmConfig extends Omit<LlmEndpointConfig, "model"> {
  readonly model?: string | readonly string[] | null;
  readonly dspy_model?: string | null;
  readonly optimizer?: LlmEndpointConfig | null;
  readonly agent?: LlmEndpointConfig | null;
  readonly guide?: LlmEndpointConfig | null;
  readonly embedding?: LlmEndpointConfig | null;
}

/** Token and cost limits (US dollars); null = no limit. */
export interface BudgetConfig {
  readonly max_tokens_per_job: number | null;
  readonly max_cost_per_job: number | null;
  readonly max_tokens_per_run: number | null;
  readonly max_cost_per_run: number | null;
}

/** US dollars per 1 million tokens. */
export interface ModelPriceConfig {
  readonly input: number;
  readonly output: number;
  readonly cached_input?: number;
}

export interface RunConfig {
  readonly run_id: string | null;
  readonly runs_dir: string;
  readonly mode: Mode;
  readonly seeds: readonly number[];
  readonly max_workers: number;
  readonly fail_fast: boolean;
  /** Python evaluation workers (LLM4AD); null = the machine's cores. */
  readonly eval_workers: number | null;
  /** Address-space limit per evaluation worker, MiB. */
  readonly eval_memory_mb: number;
  readonly resume: ResumeMode;
  /** Seconds; null = unspecified (the CLI then applies the mode's default). */
  readonly job_timeout: number | null;
  readonly tasks: readonly TaskEntry[];
  readonly llm: LlmConfig;
  readonly budget: BudgetConfig;
  /** The config's `pricing:` entries, which replace or add to the shipped price table. */
  readonly pricing: Readonly<Record<string, ModelPriceConfig>>;
  readonly tags: readonly string[];
  readonly trainers: readonly TrainerEntry[];
  readonly eval_kwargs: Kwargs;
  /** Global trainer kwargs: `trainer_kwargs` plus the top-level legacy knobs. */
  readonly trainer_kwargs: Kwargs;
  /** Where jobs run (not in the snapshot: it does not change what a job computes). */
  readonly executor?: ExecutorConfig;
}

export interface ExecutorConfig {
  readonly kind: "local" | "bullmq";
  readonly redis: string | null;
}

export interface LoadedConfig {
  readonly path: string;
  readonly config: RunConfig;
  /** Non-fatal findings (unknown keys, ignored entries), one line each. */
  readonly warnings: readonly string[];
  /**
   * The unknown-key findings among `warnings`, worded as errors (no "(ignored)"): `run` and
   * `validate --strict` refuse them; plain `validate` only warns.
   */
  readonly unknownKeys: readonly string[];
  /** `file:line` of the deepest node along a key path (`file` alone when lines are unknown). */
  readonly locate: (keyPath: readonly PropertyKey[]) => string;
}

export const DEFAULT_SEED = 123;
export const DEFAULT_TRAINER = "PrioritySearch";
export const NO_BUDGET: BudgetConfig = { max_tokens_per_job: null, max_cost_per_job: null, max_tokens_per_run: null, max_cost_per_run: null };

type Raw = Record<string, unknown>;

/** `KNOWN_KEYS` as sets: a config may hold 100,000 keys to look up. */
const KNOWN = {
  top: new Set<string>(KNOWN_KEYS.top),
  task: new Set<string>(KNOWN_KEYS.task),
  trainer: new Set<string>(KNOWN_KEYS.trainer),
  llm: new Set<string>(KNOWN_KEYS.llm),
  llmRole: new Set<string>(KNOWN_KEYS.llmRole),
  budget: new Set<string>(KNOWN_KEYS.budget),
  price: new Set<string>(KNOWN_KEYS.price),
  executor: new Set<string>(KNOWN_KEYS.executor),
};

/** The llm block's mappings that describe one role: the block itself and its overrides. */
const LLM_ROLES = ["optimizer", "agent", "guide", "embedding"] as const;

/** First key of `keys` that is present (not undefined) in `raw`. */
function firstPresent(raw: Raw, keys: readonly string[]): unknown {
  for (const key of keys) if (raw[key] !== undefined) return raw[key];
  return undefined;
}

function kwargsOrEmpty(value: unknown): Kwargs {
  return isKwargs(value) ? cloneValue(value) : {};
}

function knobsOf(raw: Raw): Kwargs {
  const knobs: Kwargs = {};
  for (const [key, value] of Object.entries(raw)) {
    const knob = legacyKnobName(key);
    if (knob !== undefined) knobs[knob] = cloneValue(value);
  }
  return knobs;
}

function locate(source: ConfigSource, path: readonly PropertyKey[]): string {
  const line = source.lineOf(path);
  return line === undefined ? source.path : `${source.path}:${line}`;
}

/** What a config holds that is ignored: unknown keys of one mapping, or a trainer's eval_kwargs. */
type IgnoredPart =
  | { readonly kind: "unknown keys"; readonly path: readonly PropertyKey[]; readonly keys: readonly string[]; readonly known: ReadonlySet<string>; readonly shape?: string }
  | { readonly kind: "trainer eval_kwargs"; readonly index: number };

/** The shape of a key path with list indices left out, so that every list entry's findings are one kind. */
const pathShape = (path: readonly PropertyKey[]): string => path.map((s) => (typeof s === "number" ? "[]" : String(s))).join(".");

/** `'params_variant' (did you mean 'params_variants'?)`, for the first few keys that are listed. */
function keyNames(keys: readonly string[], known: ReadonlySet<string>): string[] {
  return keys.map((k, i) => {
    const near = i < NAMES_SHOWN ? closestName(k, known) : undefined;
    return near === undefined ? `'${k}'` : `'${k}' (did you mean '${near}'?)`;
  });
}

function unknownKeyWarnings(source: ConfigSource, raw: Raw): { warnings: string[]; unknownKeys: string[] } {
  const found: IgnoredPart[] = [];
  const check = (value: unknown, known: ReadonlySet<string>, path: readonly PropertyKey[], shape?: string) => {
    if (!isKwargs(value)) return;
    const keys = Object.keys(value).filter((k) => !known.has(k));
    if (keys.length > 0) found.push({ kind: "unknown keys", path, keys, known, ...(shape === undefined ? {} : { shape }) });
  };
  check(raw, KNOWN.top, []);
  (Array.isArray(raw.tasks) ? raw.tasks : []).forEach((t, i) => check(t, KNOWN.task, ["tasks", i]));
  (Array.isArray(raw.trainers) ? raw.trainers : []).forEach((t, i) => {
    check(t, KNOWN.trainer, ["trainers", i]);
    if (isKwargs(t) && t.eval_kwargs !== undefined) found.push({ kind: "trainer eval_kwargs", index: i });
  });
  check(raw.llm, KNOWN.llm, ["llm"]);
  if (isKwargs(raw.llm)) for (const role of LLM_ROLES) check(raw.llm[role], KNOWN.llmRole, ["llm", role]);
  check(raw.budget, KNOWN.budget, ["budget"]);
  check(raw.executor, KNOWN.executor, ["executor"]);
  // Model names are keys, so all price entries are one kind: 50,000 bad entries make one summary line.
  if (isKwargs(raw.pricing)) for (const [model, price] of Object.entries(raw.pricing)) check(price, KNOWN.price, ["pricing", model], "pricing.*");

  const where = (path: readonly PropertyKey[]) => (path.length === 0 ? "at the top level" : `in ${formatKeyPath(path)}`);
  const pathOf = (part: IgnoredPart) => (part.kind === "unknown keys" ? part.path : ["trainers", part.index, "eval_kwargs"]);
  const locateFirst = (part: IgnoredPart) => locate(source, part.kind === "unknown keys" ? [...part.path, part.keys[0]!] : pathOf(part));
  const evalFix = "eval_kwargs belong to a task entry or the top level";
  const unknownKeys: string[] = [];
  const unknown = (text: string) => {
    unknownKeys.push(text);
    return `${text} (ignored)`;
  };
  const warnings = compactByKind(
    found,
    (part) => `${part.kind} ${part.kind === "unknown keys" && part.shape !== undefined ? part.shape : pathShape(pathOf(part))}`,
    (part) =>
      part.kind === "unknown keys"
        ? unknown(`${locateFirst(part)}: unknown key${part.keys.length > 1 ? "s" : ""} ${listNames(keyNames(part.keys, part.known))} ${where(part.path)}`)
        : `${locateFirst(part)}: trainers[${part.index}].eval_kwargs is ignored: ${evalFix}`,
    (rest) => {
      const paths = listNames(rest.map((part) => formatKeyPath(pathOf(part))));
      return rest[0]!.kind === "unknown keys"
        ? unknown(`${locateFirst(rest[0]!)}: unknown keys also in ${paths}`)
        : `${locateFirst(rest[0]!)}: ${paths} are ignored too: ${evalFix}`;
    },
  );
  return { warnings, unknownKeys };
}

function problemLine(source: ConfigSource, path: readonly PropertyKey[], expected: string, found: unknown): string {
  return `${locate(source, path)}: ${formatKeyPath(path)}: expected ${expected}, found ${describeFound(found)}`;
}

function checkShape(source: ConfigSource): Raw {
  const data = source.data;
  if (!isKwargs(data)) {
    throw new ConfigError({ problems: [`${source.path}: the config must be a mapping of keys at the top level, found ${describeFound(data)}`] });
  }
  const decoded = Schema.decodeUnknownEither(RawConfigSchema, { errors: "all", onExcessProperty: "ignore" })(toPlain(data));
  if (Either.isLeft(decoded)) {
    const problems = compactByKind(
      schemaProblems(decoded.left.issue),
      (p) => `${p.expected} ${pathShape(p.path)}`,
      (p) => problemLine(source, p.path, p.expected, p.found),
      (rest) => `${locate(source, rest[0]!.path)}: ${listNames(rest.map((p) => formatKeyPath(p.path)))}: expected ${rest[0]!.expected}, found ${describeFound(rest[0]!.found)}, …`,
    );
    throw new ConfigError({ problems });
  }
  return data;
}

function normalizeTask(source: ConfigSource, entry: unknown, index: number, globalEval: Kwargs): TaskEntry {
  if (typeof entry === "string") return { id: entry, eval_kwargs: cloneValue(globalEval) };
  const raw = entry as Raw;
  const id = firstPresent(raw, ["id", "key", "task"]);
  if (typeof id !== "string" || id.trim() === "") {
    throw new ConfigError({ problems: [`${locate(source, ["tasks", index])}: tasks[${index}]: task entry has no id; add 'id: <suite>:<task>' (e.g. id: internal:numeric_param)`] });
  }
  return { id, eval_kwargs: { ...cloneValue(globalEval), ...kwargsOrEmpty(raw.eval_kwargs) } };
}

function normalizeTrainer(source: ConfigSource, entry: unknown, index: number, globalTrainerKwargs: Kwargs, globalOptimizerKwargs: unknown): TrainerEntry {
  const withGlobalOptimizerKwargs = (own: unknown) => mergeKwargs(globalOptimizerKwargs ?? {}, own) as Kwargs | Kwargs[];
  if (typeof entry === "string") {
    return {
      id: entry,
      params_variants: [cloneValue(globalTrainerKwargs)],
      optimizer: null,
      optimizer_kwargs: withGlobalOptimizerKwargs(undefined),
      guide: null,
      guide_kwargs: {},
      logger: null,
      logger_kwargs: {},
    };
  }
  const raw = entry as Raw;
  const id = firstPresent(raw, ["id", "name", "trainer", "key"]);
  if (typeof id !== "string" || id.trim() === "") {
    throw new ConfigError({ problems: [`${locate(source, ["trainers", index])}: trainers[${index}]: trainer entry has no id; add 'id: <trainer>' (e.g. id: PrioritySearch)`] });
  }
  const explicit = raw.params_variants;
  const single = [raw.params, raw.trainer_kwargs].find((v) => isKwargs(v) && Object.keys(v).length > 0);
  const variants: Kwargs[] = Array.isArray(explicit) ? (explicit.length > 0 ? explicit.map(kwargsOrEmpty) : [{}]) : [kwargsOrEmpty(single)];
  const entryKnobs = knobsOf(raw);
  return {
    id,
    params_variants: variants.map((v) => ({ ...cloneValue(globalTrainerKwargs), ...cloneValue(entryKnobs), ...v })),
    optimizer: (raw.optimizer as string | null | undefined) ?? null,
    optimizer_kwargs: withGlobalOptimizerKwargs(raw.optimizer_kwargs),
    guide: (raw.guide as string | null | undefined) ?? null,
    guide_kwargs: kwargsOrEmpty(raw.guide_kwargs),
    logger: (raw.logger as string | null | undefined) ?? null,
    logger_kwargs: kwargsOrEmpty(raw.logger_kwargs),
  };
}

function normalizeSeeds(source: ConfigSource, raw: Raw): number[] {
  const seeds = Array.isArray(raw.seeds) ? (raw.seeds.map((s) => Number(toPlain(s))) as number[]) : null;
  if (seeds === null) {
    if (raw.seed === null) throw new ConfigError({ problems: [problemLine(source, ["seed"], "a whole number", null)] });
    return [raw.seed === undefined ? DEFAULT_SEED : Number(toPlain(raw.seed))];
  }
  if (seeds.length === 0) return [DEFAULT_SEED];
  const seen = new Set<number>();
  seeds.forEach((seed, i) => {
    if (seen.has(seed)) throw new ConfigError({ problems: [`${locate(source, ["seeds", i])}: seeds[${i}]: seed ${seed} is listed twice; list each seed once`] });
    seen.add(seed);
  });
  return seeds;
}

const looksSecret = (key: string) => /key|token|secret|password/i.test(key) && key !== "api_key_env";

/** Keys in the llm block or its role overrides that look like they hold a secret. */
function secretProblems(source: ConfigSource, raw: Raw): string[] {
  const llm = raw.llm;
  if (!isKwargs(llm)) return [];
  // In file order, role overrides where they stand.
  const found: Array<{ readonly path: readonly string[]; readonly fixKey: string }> = [];
  for (const [key, value] of Object.entries(llm)) {
    if (looksSecret(key)) found.push({ path: ["llm", key], fixKey: "llm.api_key_env" });
    else if ((LLM_ROLES as readonly string[]).includes(key) && isKwargs(value)) {
      for (const k of Object.keys(value).filter(looksSecret)) found.push({ path: ["llm", key, k], fixKey: `llm.${key}.api_key_env` });
    }
  }
  const fix = (fixKey: string) =>
    `secrets do not belong in config files (they are copied into every run directory); set ${fixKey} to the name of an environment variable that holds it`;
  return compactByKind(
    found,
    () => "secret",
    (f) => `${locate(source, f.path)}: ${f.path.join(".")}: ${fix(f.fixKey)}`,
    (rest) => `${locate(source, rest[0]!.path)}: ${listNames(rest.map((f) => f.path.join(".")))}: ${fix(rest[0]!.fixKey)}`,
  );
}

/** A model list (the model axis) that names a model twice, or that the optimizer's own model would override. */
function modelListProblems(source: ConfigSource, raw: Raw): string[] {
  const llm = raw.llm;
  if (!isKwargs(llm) || !Array.isArray(llm.model)) return [];
  const models = llm.model as string[];
  const twice = models.findIndex((m, i) => models.indexOf(m) !== i);
  if (twice >= 0) return [`${locate(source, ["llm", "model", twice])}: llm.model[${twice}]: model '${models[twice]}' is listed twice; list each model once`];
  if (models.length > 1 && isKwargs(llm.optimizer) && typeof llm.optimizer.model === "string") {
    return [`${locate(source, ["llm", "optimizer", "model"])}: llm.optimizer.model overrides every model listed in llm.model, so the jobs would all use '${llm.optimizer.model}'; remove one of the two`];
  }
  return [];
}

const LLM_NUMBER_KEYS = ["timeout_seconds", "max_retries", "max_concurrency", "requests_per_minute"] as const;

/** The llm block as written, with its number keys as plain numbers (integral floats arrive as `PyFloat`). */
function normalizeLlm(raw: unknown): LlmConfig {
  if (!isKwargs(raw)) return {};
  const plainNumbers = (block: Kwargs): Kwargs => {
    const copy = cloneValue(block);
    for (const key of LLM_NUMBER_KEYS) if (copy[key] !== undefined) copy[key] = toPlain(copy[key]);
    return copy;
  };
  const llm = plainNumbers(raw);
  for (const role of LLM_ROLES) if (isKwargs(llm[role])) llm[role] = plainNumbers(llm[role]);
  return llm as LlmConfig;
}

function normalizeBudget(raw: unknown): BudgetConfig {
  if (!isKwargs(raw)) return NO_BUDGET;
  const limit = (key: keyof BudgetConfig) => (raw[key] === undefined || raw[key] === null ? null : Number(toPlain(raw[key])));
  return {
    max_tokens_per_job: limit("max_tokens_per_job"),
    max_cost_per_job: limit("max_cost_per_job"),
    max_tokens_per_run: limit("max_tokens_per_run"),
    max_cost_per_run: limit("max_cost_per_run"),
  };
}

function normalizePricing(raw: unknown): Record<string, ModelPriceConfig> {
  if (!isKwargs(raw)) return {};
  return Object.fromEntries(
    Object.entries(raw).map(([model, entry]) => {
      const price = entry as Kwargs;
      const cached = price.cached_input;
      return [model, { input: Number(toPlain(price.input)), output: Number(toPlain(price.output)), ...(cached === undefined ? {} : { cached_input: Number(toPlain(cached)) }) }];
    }),
  );
}

/** Decode, check and normalize an already-parsed config document. */
export function resolveRunConfig(source: ConfigSource): LoadedConfig {
  const raw = checkShape(source);
  const secrets = secretProblems(source, raw);
  if (secrets.length > 0) throw new ConfigError({ problems: secrets });
  const models = modelListProblems(source, raw);
  if (models.length > 0) throw new ConfigError({ problems: models });
  const { warnings, unknownKeys } = unknownKeyWarnings(source, raw);

  const tasksRaw = Array.isArray(raw.tasks) ? raw.tasks : [];
  if (tasksRaw.length === 0) {
    throw new ConfigError({ problems: [`${locate(source, ["tasks"])}: tasks: no tasks given; list at least one task id, e.g. tasks: [internal:numeric_param]`] });
  }
  const evalKwargs = kwargsOrEmpty(raw.eval_kwargs);
  const trainerKwargs = { ...kwargsOrEmpty(raw.trainer_kwargs), ...knobsOf(raw) };
  const trainersRaw = Array.isArray(raw.trainers) ? raw.trainers : [];
  const trainers =
    trainersRaw.length > 0
      ? trainersRaw.map((t, i) => normalizeTrainer(source, t, i, trainerKwargs, raw.optimizer_kwargs))
      : [normalizeTrainer(source, DEFAULT_TRAINER, 0, trainerKwargs, raw.optimizer_kwargs)];
  const jobTimeout = firstPresent(raw, ["job_timeout", "job-timeout"]);

  const config: RunConfig = {
    run_id: (raw.run_id as string | null | undefined) ?? null,
    runs_dir: (firstPresent(raw, ["runs_dir", "runs_root"]) as string | undefined) ?? "runs",
    mode: (raw.mode as Mode | undefined) ?? "stub",
    seeds: normalizeSeeds(source, raw),
    max_workers: Number(toPlain(firstPresent(raw, ["max_workers", "n_concurrent", "n-concurrent"]) ?? 1)),
    fail_fast: (raw.fail_fast as boolean | undefined) ?? false,
    eval_workers: typeof toPlain(raw.eval_workers) === "number" ? Number(toPlain(raw.eval_workers)) : null,
    eval_memory_mb: typeof toPlain(raw.eval_memory_mb) === "number" ? Number(toPlain(raw.eval_memory_mb)) : 4096,
    resume: (raw.resume as ResumeMode | undefined) ?? "auto",
    job_timeout: jobTimeout === undefined || jobTimeout === null ? null : Number(toPlain(jobTimeout)),
    tasks: tasksRaw.map((t, i) => normalizeTask(source, t, i, evalKwargs)),
    llm: normalizeLlm(raw.llm),
    budget: normalizeBudget(raw.budget),
    pricing: normalizePricing(raw.pricing),
    tags: Array.isArray(raw.tags) ? raw.tags.map(pythonStr) : [],
    trainers,
    eval_kwargs: evalKwargs,
    trainer_kwargs: trainerKwargs,
    ...(isKwargs(raw.executor) ? { executor: { kind: raw.executor.kind === "bullmq" ? "bullmq" : "local", redis: typeof raw.executor.redis === "string" ? raw.executor.redis : null } } : {}),
  };
  return { path: source.path, config, warnings, unknownKeys, locate: (keyPath) => locate(source, keyPath) };
}

/** Read, decode and normalize a YAML or JSON config file. Throws `ConfigError`. */
export function loadRunConfig(path: string): LoadedConfig {
  return resolveRunConfig(readConfigFile(path));
}
