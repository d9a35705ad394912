/**
 * The shape of a benchmark config file as users write it (spec §2), aliases included. It checks
 * types only; `run-config.ts` resolves aliases and defaults. The same schema generates the JSON
 * Schema that `trace-bench schema` prints for editors.
 */
import * as Schema from "effect/Schema";
import { LEGACY_KNOB_SPELLINGS } from "./legacy-knobs.js";
import { COUNT_KWARGS } from "./trainer-kwarg-names.js";
import { JOB_TIMEOUT_RANGE, MAX_JOB_TIMEOUT_SECONDS } from "./job-timeout-range.js";

const describe = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  schema.annotations({ description }) as unknown as S;

const Text = describe(Schema.String, "a string");
const OptionalText = describe(Schema.NullOr(Schema.String), "a string or null");
const Count = describe(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)), "a whole number ≥ 0");
const Positive = describe(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), "a whole number ≥ 1");
const Seed = describe(Schema.Int, "a whole number");
const Seconds = describe(Schema.NullOr(Schema.Finite.pipe(Schema.between(0, MAX_JOB_TIMEOUT_SECONDS))), `${JOB_TIMEOUT_RANGE}, or null`);
const Flag = describe(Schema.Boolean, "true or false");
const Kwargs = describe(Schema.Record({ key: Schema.String, value: Schema.Unknown }), "a mapping of keyword arguments");
const OptionalKwargs = describe(Schema.NullOr(Kwargs), "a mapping of keyword arguments, or null");
const OptimizerKwargs = describe(
  Schema.NullOr(Schema.Union(Kwargs, Schema.Array(Kwargs))),
  "a mapping of keyword arguments (or a list of them, one per parameter group), or null",
);

const NullableCount = describe(Schema.NullOr(Count), "a whole number ≥ 0, or null");
const Verbose = describe(Schema.Union(Schema.Boolean, Schema.String), "true, false or a verbosity name");

const typedKwargFields = (spellings: readonly string[]) => {
  const fields: Record<string, Schema.optional<typeof NullableCount> | Schema.optional<typeof Verbose>> = {};
  for (const key of spellings) {
    const name = key.replace(/-/g, "_");
    if (name === "verbose") fields[key] = Schema.optional(Verbose);
    else if (COUNT_KWARGS.includes(name)) fields[key] = Schema.optional(NullableCount);
  }
  return fields;
};

export const ParamsVariantSchema = describe(
  Schema.Struct(typedKwargFields([...COUNT_KWARGS, "verbose"]), Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  "a mapping of trainer keyword arguments",
);

const knobFields = typedKwargFields(LEGACY_KNOB_SPELLINGS);

export const TaskEntrySchema = describe(
  Schema.Union(
    describe(Schema.String, "a task id"),
    Schema.Struct({
      id: Schema.optional(Text),
      key: Schema.optional(Text),
      task: Schema.optional(Text),
      eval_kwargs: Schema.optional(OptionalKwargs),
    }),
  ),
  "a task id (e.g. internal:numeric_param) or a mapping with id and eval_kwargs",
);

export const TrainerEntrySchema = describe(
  Schema.Union(
    describe(Schema.String, "a trainer id"),
    Schema.Struct({
      id: Schema.optional(Text),
      name: Schema.optional(Text),
      trainer: Schema.optional(Text),
      key: Schema.optional(Text),
      params_variants: Schema.optional(
        describe(Schema.NullOr(Schema.Array(ParamsVariantSchema)), "a list of mappings of trainer keyword arguments, or null"),
      ),
      params: Schema.optional(describe(Schema.NullOr(ParamsVariantSchema), "a mapping of trainer keyword arguments, or null")),
      trainer_kwargs: Schema.optional(describe(Schema.NullOr(ParamsVariantSchema), "a mapping of trainer keyword arguments, or null")),
      optimizer: Schema.optional(OptionalText),
      optimizer_kwargs: Schema.optional(OptimizerKwargs),
      guide: Schema.optional(OptionalText),
      guide_kwargs: Schema.optional(OptionalKwargs),
      logger: Schema.optional(OptionalText),
      logger_kwargs: Schema.optional(OptionalKwargs),
      eval_kwargs: Schema.optional(OptionalKwargs),
      ...knobFields,
    }),
  ),
  "a trainer id (e.g. PrioritySearch) or a mapping with id, params_variants, optimizer, guide and logger",
);

const PositiveSeconds = describe(Schema.Finite.pipe(Schema.greaterThan(0)), "a number of seconds > 0");
const RequestsPerMinute = describe(Schema.NullOr(Schema.Finite.pipe(Schema.greaterThan(0))), "a number > 0, or null (no limit)");

/** Where one role's LLM is and how it is called; every key falls back to the llm block's own. */
const llmEndpointFields = {
  provider: Schema.optional(OptionalText).annotations({ description: "openai or openrouter (picks the default key variable and, for openrouter, the base URL)." }),
  model: Schema.optional(OptionalText).annotations({ description: "Model name. Default: $TRACE_LITELLM_MODEL, else $DEFAULT_LITELLM_MODEL, else gpt-4o." }),
  base_url: Schema.optional(OptionalText).annotations({ description: "OpenAI-compatible server URL. Default: $OPENAI_BASE_URL, else $OPENAI_API_BASE, else the provider's." }),
  api_base: Schema.optional(OptionalText).annotations({ description: "Alias of base_url." }),
  api_key_env: Schema.optional(OptionalText).annotations({ description: "The NAME of the environment variable holding the API key (default OPENAI_API_KEY, or OPENROUTER_API_KEY for openrouter). Never the key itself." }),
  timeout_seconds: Schema.optional(PositiveSeconds).annotations({ description: "Time limit of one LLM call, in seconds (default 120)." }),
  max_retries: Schema.optional(Count).annotations({ description: "Retries of a call after a rate limit, timeout, network or server error (default 5)." }),
  max_concurrency: Schema.optional(Positive).annotations({ description: "Requests in flight at once to one model, shared by all jobs of the run (default 8)." }),
  requests_per_minute: Schema.optional(RequestsPerMinute).annotations({ description: "Requests started per minute to one model, shared by all jobs; null = no limit (the default)." }),
};

const LlmRoleSchema = describe(
  Schema.NullOr(Schema.Struct(llmEndpointFields)),
  "a mapping with provider, model, base_url, api_key_env, timeout_seconds, max_retries, max_concurrency and requests_per_minute, or null",
);

const ModelNames = describe(
  Schema.Union(describe(Schema.String, "a model name"), describe(Schema.NonEmptyArray(describe(Schema.String, "a model name")), "a list of model names")),
  "a model name, a list of model names, or null",
);

export const LlmSchema = describe(
  Schema.NullOr(
    Schema.Struct({
      ...llmEndpointFields,
      model: Schema.optional(describe(Schema.NullOr(ModelNames), "a model name, a list of model names, or null")).annotations({
        description:
          "Model name, or a list of model names to compare: every job of the matrix then runs once per model (the model becomes part of each job's id). Default: $TRACE_LITELLM_MODEL, else $DEFAULT_LITELLM_MODEL, else gpt-4o.",
      }),
      dspy_model: Schema.optional(OptionalText),
      optimizer: Schema.optional(LlmRoleSchema).annotations({ description: "Overrides for the optimizer's LLM; keys not given come from the llm block." }),
      agent: Schema.optional(LlmRoleSchema).annotations({ description: "Overrides for the agent's LLM (tasks that call an LLM themselves); keys not given come from the llm block." }),
      guide: Schema.optional(LlmRoleSchema).annotations({ description: "Overrides for the guide's LLM (guides and judges that call an LLM); keys not given come from the llm block." }),
      embedding: Schema.optional(LlmRoleSchema).annotations({
        description: "The embeddings endpoint (POLCA's ε-net, an OpenAI-compatible /embeddings): its model (default: the trainer's embedding_model, else gemini/gemini-embedding-001) and any key of the llm block for it.",
      }),
    }),
  ),
  "a mapping with provider, model, base_url, api_key_env, timeouts and limits, optimizer, agent, guide and embedding, or null",
);

const TokenLimit = describe(Schema.NullOr(Positive), "a whole number of tokens ≥ 1, or null (no limit)");
const CostLimit = describe(Schema.NullOr(Schema.Finite.pipe(Schema.greaterThan(0))), "a number of US dollars > 0, or null (no limit)");

export const BudgetSchema = describe(
  Schema.NullOr(
    Schema.Struct({
      max_tokens_per_job: Schema.optional(TokenLimit).annotations({ description: "A job's LLM requests never use more tokens than this (prompt + completion): a request whose worst case (prompt bound + max_tokens) could pass what is left is not sent, and the job ends budget_exhausted." }),
      max_cost_per_job: Schema.optional(CostLimit).annotations({ description: "A job's LLM requests never cost more US dollars than this (see pricing): a request whose worst-case price could pass what is left is not sent." }),
      max_tokens_per_run: Schema.optional(TokenLimit).annotations({ description: "The run's LLM requests, every invocation and the preflight included, never use more tokens than this; once one cannot fit, no new job starts (the run exits 3)." }),
      max_cost_per_run: Schema.optional(CostLimit).annotations({ description: "The run's LLM requests, every invocation and the preflight included, never cost more US dollars than this; once one cannot fit, no new job starts (the run exits 3)." }),
    }),
  ),
  "a mapping with max_tokens_per_job, max_cost_per_job, max_tokens_per_run and max_cost_per_run, or null",
);

const Price = describe(Schema.Finite.pipe(Schema.greaterThanOrEqualTo(0)), "a price in US dollars per 1 million tokens ≥ 0");

export const ModelPriceSchema = describe(
  Schema.Struct({
    // No description of their own: a missing one is then reported as "expected a price ...".
    input: Price,
    output: Price,
    cached_input: Schema.optional(Price),
  }),
  "a mapping with input (prompt tokens), output (completion tokens) and optionally cached_input (prompt tokens served from the provider's cache), in US dollars per 1 million tokens",
);

export const PricingSchema = describe(
  Schema.NullOr(Schema.Record({ key: Schema.String, value: ModelPriceSchema })),
  "a mapping of model name to {input, output, cached_input}, or null",
);

/** Where jobs run: here (local), or on `trace-bench worker`s through Redis (bullmq). */
export const ExecutorSchema = describe(
  Schema.NullOr(
    Schema.Struct({
      kind: describe(Schema.Literal("local", "bullmq"), '"local" or "bullmq"').annotations({ description: "local: jobs run in this process (default); bullmq: jobs are queued in Redis and run by `trace-bench worker` processes." }),
      redis: Schema.optional(Text).annotations({ description: "The Redis URL for bullmq, e.g. redis://127.0.0.1:6379 (the --redis flag overrides it)." }),
    }),
  ),
  "a mapping {kind: local | bullmq, redis: URL}, or null",
);

export const RawConfigSchema = Schema.Struct({
  run_id: Schema.optional(OptionalText).annotations({ description: "Fixed run id: runs write into <runs_dir>/<run_id> and resume there. Default: <UTC time>-<config hash>." }),
  runs_dir: Schema.optional(Text).annotations({ description: 'Where run directories are created (default "runs").' }),
  runs_root: Schema.optional(Text).annotations({ description: "Alias of runs_dir." }),
  mode: Schema.optional(describe(Schema.Literal("stub", "real"), '"stub" or "real"')).annotations({ description: "stub: no network, a deterministic stub LLM; real: an OpenAI-compatible LLM (see llm). Default stub." }),
  seeds: Schema.optional(describe(Schema.NullOr(Schema.Array(Seed)), "a list of whole numbers, or null")).annotations({ description: "Seeds; every job of the matrix runs once per seed. Default [123]." }),
  seed: Schema.optional(Seed).annotations({ description: "A single seed, used when seeds is absent. Default 123." }),
  max_workers: Schema.optional(Positive).annotations({ description: "How many jobs run at once (default 1)." }),
  n_concurrent: Schema.optional(Positive).annotations({ description: "Alias of max_workers." }),
  "n-concurrent": Schema.optional(Positive).annotations({ description: "Alias of max_workers." }),
  fail_fast: Schema.optional(Flag).annotations({ description: "Stop starting jobs after the first failed job (default false)." }),
  eval_workers: Schema.optional(Positive).annotations({ description: "Python workers evaluating LLM4AD candidates, shared by all jobs (default: the machine's cores)." }),
  eval_memory_mb: Schema.optional(Positive).annotations({ description: "Address-space limit of each Python evaluation worker, MiB (default 4096)." }),
  resume: Schema.optional(describe(Schema.Literal("auto", "failed", "none"), "one of auto, failed, none")).annotations({ description: "auto: reuse ok/skipped jobs of an existing run; failed: re-run only failed jobs; none: re-run everything. Default auto." }),
  job_timeout: Schema.optional(Seconds).annotations({ description: "Per-job time limit in seconds; 0 = none; null = the mode’s default (stub 0, real 600)." }),
  "job-timeout": Schema.optional(Seconds).annotations({ description: "Alias of job_timeout." }),
  eval_kwargs: Schema.optional(OptionalKwargs).annotations({ description: "Default task build arguments, merged under each task’s own eval_kwargs." }),
  trainer_kwargs: Schema.optional(describe(Schema.NullOr(ParamsVariantSchema), "a mapping of trainer keyword arguments, or null")).annotations({ description: "Default trainer keyword arguments, merged under every params variant." }),
  optimizer_kwargs: Schema.optional(OptimizerKwargs).annotations({ description: "Default optimizer keyword arguments, merged under every trainer’s optimizer_kwargs." }),
  llm: Schema.optional(LlmSchema).annotations({
    description:
      "The LLM for mode real: provider, model (one name, or a list of names to run every job once per model), base_url (alias api_base), api_key_env (the NAME of the variable holding the key), timeout_seconds, max_retries, max_concurrency, requests_per_minute; optimizer, agent and guide override any of them for that role.",
  }),
  budget: Schema.optional(BudgetSchema).annotations({ description: "Token and cost limits per job and per run; each null or absent = no limit." }),
  executor: Schema.optional(ExecutorSchema).annotations({ description: "Where jobs run: {kind: local} (default) or {kind: bullmq, redis: URL} (workers started with `trace-bench worker --redis URL`). Not part of the config hash: the same run may resume under either." }),
  pricing: Schema.optional(PricingSchema).annotations({
    description: "Model prices in US dollars per 1 million tokens, {input, output, cached_input}; they replace or add to the shipped table (configs/pricing.yaml).",
  }),
  tags: Schema.optional(
    describe(Schema.NullOr(Schema.Array(describe(Schema.Union(Schema.String, Schema.Number, Schema.Boolean), "a tag"))), "a list of tags, or null"),
  ).annotations({ description: "Free labels copied into the manifest and summary." }),
  tasks: Schema.optional(describe(Schema.NullOr(Schema.Array(TaskEntrySchema)), "a list of tasks")).annotations({ description: "Task ids (suite:name, e.g. internal:numeric_param) or mappings {id, eval_kwargs}." }),
  trainers: Schema.optional(describe(Schema.NullOr(Schema.Array(TrainerEntrySchema)), "a list of trainers, or null")).annotations({ description: "Trainer ids or mappings {id, params_variants, optimizer, optimizer_kwargs, guide, guide_kwargs, logger, logger_kwargs}. Default [PrioritySearch]." }),
  ...knobFields,
}).annotations({
  title: "trace-bench run config",
  description: "A benchmark matrix: tasks × trainers × params_variants × seeds.",
});

export type RawConfig = Schema.Schema.Type<typeof RawConfigSchema>;

/** Keys each mapping may have; anything else is warned about. */
export const KNOWN_KEYS = {
  top: Object.keys(RawConfigSchema.fields),
  task: ["id", "key", "task", "eval_kwargs"],
  trainer: [
    "id",
    "name",
    "trainer",
    "key",
    "params_variants",
    "params",
    "trainer_kwargs",
    "optimizer",
    "optimizer_kwargs",
    "guide",
    "guide_kwargs",
    "logger",
    "logger_kwargs",
    "eval_kwargs",
    ...LEGACY_KNOB_SPELLINGS,
  ],
  llm: ["provider", "model", "base_url", "api_base", "api_key_env", "dspy_model", "timeout_seconds", "max_retries", "max_concurrency", "requests_per_minute", "optimizer", "agent", "guide", "embedding"],
  llmRole: Object.keys(llmEndpointFields),
  budget: ["max_tokens_per_job", "max_cost_per_job", "max_tokens_per_run", "max_cost_per_run"],
  price: ["input", "output", "cached_input"],
  executor: ["kind", "redis"],
} as const;
