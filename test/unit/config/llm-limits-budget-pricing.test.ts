/**
 * The llm block's call limits and role overrides, `budget` and `pricing`: accepted values, the
 * one-line problem for each bad one, no warnings for the known keys, and how they hash.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/config-error.js";
import { parseConfigText } from "../../../src/config/config-file.js";
import { resolveRunConfig, type LoadedConfig } from "../../../src/config/run-config.js";
import { computeConfigHash, configSnapshot } from "../../../src/config/snapshot.js";

const TASK = "tasks: [internal:numeric_param]\n";
const loaded = (text: string): LoadedConfig => resolveRunConfig(parseConfigText("b.yaml", `${TASK}${text}`));

function problems(text: string): readonly string[] {
  try {
    loaded(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

describe("llm call limits", () => {
  it("are taken as plain numbers (30.0 included), with no warning", () => {
    const { config, warnings } = loaded("llm:\n  timeout_seconds: 30.0\n  max_retries: 0\n  max_concurrency: 4\n  requests_per_minute: 90.5\n");
    expect(warnings).toEqual([]);
    expect(config.llm).toEqual({ timeout_seconds: 30, max_retries: 0, max_concurrency: 4, requests_per_minute: 90.5 });
    expect(typeof config.llm.timeout_seconds).toBe("number");
    expect(loaded("llm:\n  requests_per_minute: null\n").config.llm).toEqual({ requests_per_minute: null });
  });

  it.each([
    ["timeout_seconds: 0", "b.yaml:3: llm.timeout_seconds: expected a number of seconds > 0, found 0"],
    ["timeout_seconds: fast", 'b.yaml:3: llm.timeout_seconds: expected a number of seconds > 0, found "fast"'],
    ["timeout_seconds: null", "b.yaml:3: llm.timeout_seconds: expected a number of seconds > 0, found null"],
    ["max_retries: -1", "b.yaml:3: llm.max_retries: expected a whole number ≥ 0, found -1"],
    ["max_retries: 1.5", "b.yaml:3: llm.max_retries: expected a whole number ≥ 0, found 1.5"],
    ["max_concurrency: 0", "b.yaml:3: llm.max_concurrency: expected a whole number ≥ 1, found 0"],
    ["requests_per_minute: 0", "b.yaml:3: llm.requests_per_minute: expected a number > 0, or null (no limit), found 0"],
    ["requests_per_minute: .inf", "b.yaml:3: llm.requests_per_minute: expected a number > 0, or null (no limit), found Infinity"],
  ])("llm.%s is refused in one line", (line, expected) => {
    expect(problems(`llm:\n  ${line}\n`)).toEqual([expected]);
  });
});

describe("llm.optimizer and llm.agent", () => {
  it("are kept as written, numbers plain, with no warning", () => {
    const text = "llm:\n  model: gpt-4o\n  optimizer:\n    model: o3\n    max_retries: 2.0\n    requests_per_minute: null\n  agent:\n    provider: openrouter\n    api_key_env: OR_KEY\n    base_url: http://x\n    api_base: http://y\n    timeout_seconds: 5\n    max_concurrency: 2\n";
    const { config, warnings } = loaded(text);
    expect(warnings).toEqual([]);
    expect(config.llm).toEqual({
      model: "gpt-4o",
      optimizer: { model: "o3", max_retries: 2, requests_per_minute: null },
      agent: { provider: "openrouter", api_key_env: "OR_KEY", base_url: "http://x", api_base: "http://y", timeout_seconds: 5, max_concurrency: 2 },
    });
    expect(loaded("llm:\n  optimizer: null\n").config.llm).toEqual({ optimizer: null });
  });

  it("bad values inside name the nested key path and line", () => {
    expect(problems("llm:\n  optimizer:\n    max_concurrency: 0\n")).toEqual(["b.yaml:4: llm.optimizer.max_concurrency: expected a whole number ≥ 1, found 0"]);
    expect(problems("llm:\n  agent:\n    model: 4\n")).toEqual(["b.yaml:4: llm.agent.model: expected a string or null, found 4"]);
    expect(problems("llm:\n  optimizer: fast\n")).toEqual([
      'b.yaml:3: llm.optimizer: expected a mapping with provider, model, base_url, api_key_env, timeout_seconds, max_retries, max_concurrency and requests_per_minute, or null, found "fast"',
    ]);
  });

  it("refuse secret-looking keys, naming the role's api_key_env as the fix and never echoing the value", () => {
    const lines = problems("llm:\n  agent:\n    api_key: sk-live-1\n  optimizer:\n    client_secret: s3cr3t\n    api_key_env: FINE\n");
    const fix = (role: string) =>
      `secrets do not belong in config files (they are copied into every run directory); set llm.${role}.api_key_env to the name of an environment variable that holds it`;
    expect(lines).toEqual([`b.yaml:4: llm.agent.api_key: ${fix("agent")}`, `b.yaml:6: llm.optimizer.client_secret: ${fix("optimizer")}`]);
    expect(lines.join("\n")).not.toContain("sk-live-1");
    expect(lines.join("\n")).not.toContain("s3cr3t");
  });

  it("a secret in the block and in a role are reported together", () => {
    const lines = problems("llm:\n  token: a\n  optimizer:\n    password: b\n");
    expect(lines.map((l) => l.split(": ").slice(0, 2).join(": "))).toEqual(["b.yaml:3: llm.token", "b.yaml:5: llm.optimizer.password"]);
  });

  it("warn about unknown keys inside, with their lines", () => {
    const { warnings } = loaded("llm:\n  optimizer: {temperature: 1}\n  agent:\n    foo: 1\n");
    expect(warnings).toEqual(["b.yaml:3: unknown key 'temperature' in llm.optimizer (ignored)", "b.yaml:5: unknown key 'foo' in llm.agent (ignored)"]);
  });

  it("llm.guide is kept like the other roles; its bad values, secrets and unknown keys are reported in one line each", () => {
    const { config, warnings } = loaded("llm:\n  guide:\n    model: gpt-4o-mini\n    max_concurrency: 3.0\n");
    expect(warnings).toEqual([]);
    expect(config.llm).toEqual({ guide: { model: "gpt-4o-mini", max_concurrency: 3 } });
    expect(problems("llm:\n  guide:\n    max_retries: -1\n")).toEqual(["b.yaml:4: llm.guide.max_retries: expected a whole number ≥ 0, found -1"]);
    expect(problems("llm:\n  guide:\n    api_key: sk-1\n")).toEqual([
      "b.yaml:4: llm.guide.api_key: secrets do not belong in config files (they are copied into every run directory); set llm.guide.api_key_env to the name of an environment variable that holds it",
    ]);
    expect(loaded("llm:\n  guide: {temperature: 1}\n").warnings).toEqual(["b.yaml:3: unknown key 'temperature' in llm.guide (ignored)"]);
  });

  it("dspy_model, optimizer and agent are llm-block keys only: dspy_model inside a role is warned about", () => {
    expect(loaded("llm:\n  optimizer:\n    dspy_model: x\n").warnings).toEqual(["b.yaml:4: unknown key 'dspy_model' in llm.optimizer (ignored)"]);
  });
});

describe("budget", () => {
  it("defaults to no limits; given limits are plain numbers", () => {
    expect(loaded("").config.budget).toEqual({ max_tokens_per_job: null, max_cost_per_job: null, max_tokens_per_run: null, max_cost_per_run: null });
    expect(loaded("budget: null\n").config.budget.max_cost_per_run).toBeNull();
    const { config, warnings } = loaded("budget:\n  max_tokens_per_job: 20000\n  max_cost_per_job: 0.5\n  max_tokens_per_run: null\n  max_cost_per_run: 10.0\n");
    expect(warnings).toEqual([]);
    expect(config.budget).toEqual({ max_tokens_per_job: 20000, max_cost_per_job: 0.5, max_tokens_per_run: null, max_cost_per_run: 10 });
    expect(typeof config.budget.max_cost_per_run).toBe("number");
  });

  it.each([
    ["max_tokens_per_job: 0", "b.yaml:3: budget.max_tokens_per_job: expected a whole number of tokens ≥ 1, or null (no limit), found 0"],
    ["max_tokens_per_run: 1.5", "b.yaml:3: budget.max_tokens_per_run: expected a whole number of tokens ≥ 1, or null (no limit), found 1.5"],
    ["max_cost_per_job: 0", "b.yaml:3: budget.max_cost_per_job: expected a number of US dollars > 0, or null (no limit), found 0"],
    ["max_cost_per_run: cheap", 'b.yaml:3: budget.max_cost_per_run: expected a number of US dollars > 0, or null (no limit), found "cheap"'],
  ])("budget.%s is refused in one line", (line, expected) => {
    expect(problems(`budget:\n  ${line}\n`)).toEqual([expected]);
  });

  it("not a mapping is refused; an unknown key inside is warned about", () => {
    expect(problems("budget: 5\n")).toEqual([
      "b.yaml:2: budget: expected a mapping with max_tokens_per_job, max_cost_per_job, max_tokens_per_run and max_cost_per_run, or null, found 5",
    ]);
    expect(loaded("budget:\n  max_tokens: 5\n").warnings).toEqual(["b.yaml:3: unknown key 'max_tokens' in budget (ignored)"]);
  });
});

describe("pricing", () => {
  it("entries are taken as plain numbers, cached_input only when given", () => {
    const { config, warnings } = loaded("pricing:\n  my-model: {input: 1.0, output: 2.5, cached_input: 0.1}\n  openai/other: {input: 0, output: 3}\n");
    expect(warnings).toEqual([]);
    expect(config.pricing).toEqual({ "my-model": { input: 1, output: 2.5, cached_input: 0.1 }, "openai/other": { input: 0, output: 3 } });
    expect("cached_input" in config.pricing["openai/other"]!).toBe(false);
    expect(loaded("pricing: null\n").config.pricing).toEqual({});
  });

  it.each([
    ["my-model: {input: 1}", "b.yaml:3: pricing.my-model.output: expected a price in US dollars per 1 million tokens ≥ 0, found nothing"],
    ["my-model: {input: -1, output: 2}", "b.yaml:3: pricing.my-model.input: expected a price in US dollars per 1 million tokens ≥ 0, found -1"],
    ["my-model: {input: 1, output: 2, cached_input: null}", "b.yaml:3: pricing.my-model.cached_input: expected a price in US dollars per 1 million tokens ≥ 0, found null"],
  ])("pricing: %s is refused in one line", (entry, expected) => {
    expect(problems(`pricing:\n  ${entry}\n`)).toEqual([expected]);
  });

  it("an entry or the whole key of the wrong type is refused", () => {
    expect(problems("pricing:\n  my-model: 3\n")[0]).toMatch(/^b\.yaml:3: pricing\.my-model: expected a mapping with input .*, found 3$/);
    expect(problems("pricing: [a]\n")).toEqual(["b.yaml:2: pricing: expected a mapping of model name to {input, output, cached_input}, or null, found a list"]);
  });

  it("unknown keys inside entries are warned about, and 50 bad entries make a few lines, not 50", () => {
    expect(loaded("pricing:\n  m: {input: 1, output: 2, cache: 1}\n").warnings).toEqual(["b.yaml:3: unknown key 'cache' in pricing.m (ignored)"]);
    const many = Array.from({ length: 50 }, (_, i) => `  m${i}: {input: 1, output: 2, cache: 1}`).join("\n");
    const { warnings } = loaded(`pricing:\n${many}\n`);
    expect(warnings).toHaveLength(4);
    expect(warnings[3]).toBe("b.yaml:6: unknown keys also in pricing.m3, pricing.m4, pricing.m5, pricing.m6, pricing.m7 and 42 more (ignored)");
  });
});

describe("snapshot and config hash", () => {
  const hash = (text: string) => computeConfigHash(configSnapshot(loaded(text).config));

  it("budget and pricing enter the snapshot only when set, so other configs snapshot as before", () => {
    expect(Object.keys(configSnapshot(loaded("").config))).not.toContain("budget");
    expect(Object.keys(configSnapshot(loaded("budget: {max_cost_per_run: 2}\n").config)).at(-1)).toBe("budget");
    const snapshot = configSnapshot(loaded("budget: {max_cost_per_run: 2}\npricing: {m: {input: 1, output: 2}}\n").config);
    expect(snapshot.budget).toEqual({ max_tokens_per_job: null, max_cost_per_job: null, max_tokens_per_run: null, max_cost_per_run: 2 });
    expect(snapshot.pricing).toEqual({ m: { input: 1, output: 2 } });
    const reloaded = resolveRunConfig(parseConfigText("snapshot.json", JSON.stringify(snapshot)));
    expect(reloaded.warnings).toEqual([]);
    expect(configSnapshot(reloaded.config)).toEqual(snapshot);
  });

  it.each([
    ["budget", "budget: {max_cost_per_run: 2}\n"],
    ["pricing", "pricing: {m: {input: 1, output: 2}}\n"],
    ["llm call limits", "llm: {timeout_seconds: 5, max_retries: 1, max_concurrency: 2, requests_per_minute: 60}\n"],
    ["role call limits", "llm: {optimizer: {max_concurrency: 2}, agent: {requests_per_minute: null}}\n"],
  ])("%s do not change the hash, so a run can be resumed with other limits", (_what, extra) => {
    expect(hash(extra)).toBe(hash(""));
  });

  it("a role's model does change the hash", () => {
    expect(hash("llm: {optimizer: {model: o3}}\n")).not.toBe(hash(""));
    expect(hash("llm: {optimizer: {model: o3, max_retries: 1}}\n")).toBe(hash("llm: {optimizer: {model: o3}}\n"));
  });
});
