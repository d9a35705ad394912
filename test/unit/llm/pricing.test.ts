/**
 * Prices and costs. Expected costs are worked out by hand in each test as
 * (uncached prompt × input + cached × cached_input + completion × output) / 1,000,000, with the
 * per-1M prices of configs/pricing.yaml written next to them.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { costOf, loadPriceTable, parsePriceTable, priceOf, shippedPricingPath } from "../../../src/llm/pricing.js";

const shipped = loadPriceTable();

describe("the shipped table", () => {
  it("is found next to the package.json above the module and parses", () => {
    const path = shippedPricingPath();
    expect(path.endsWith("configs/pricing.yaml")).toBe(true);
    expect(existsSync(path)).toBe(true);
    expect(shipped.size).toBeGreaterThan(20);
  });

  it("holds the list prices of the common OpenAI models", () => {
    expect(shipped.get("gpt-4o")).toEqual({ input: 2.5, output: 10, cached_input: 1.25 });
    expect(shipped.get("gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6, cached_input: 0.075 });
    expect(shipped.get("gpt-4.1")).toEqual({ input: 2, output: 8, cached_input: 0.5 });
    expect(shipped.get("gpt-5")).toEqual({ input: 1.25, output: 10, cached_input: 0.125 });
    expect(shipped.get("o4-mini")).toEqual({ input: 1.1, output: 4.4, cached_input: 0.275 });
  });

  it("every entry's cached price is at most its input price, and output at least input", () => {
    for (const [model, price] of shipped) {
      expect(price.cached_input ?? price.input, model).toBeLessThanOrEqual(price.input);
      expect(price.output, model).toBeGreaterThanOrEqual(price.input);
    }
  });

  it("says where its numbers come from, when, and that a config's pricing: overrides them", () => {
    const text = readFileSync(shippedPricingPath(), "utf8");
    expect(text).toMatch(/^# .*Written in 20\d\d/m);
    expect(text).toContain("pricing:");
  });
});

describe("costOf", () => {
  it("prices prompt and completion tokens at the input and output prices", () => {
    // gpt-4o: 1,000,000 × 2.50 + 500,000 × 10.00 = 7,500,000 → $7.50
    expect(costOf(shipped, "gpt-4o", { prompt_tokens: 1_000_000, completion_tokens: 500_000 })).toBeCloseTo(7.5, 12);
  });

  it("prices cached prompt tokens at cached_input, the rest of the prompt at input", () => {
    // gpt-4o: (1,200 − 200) × 2.50 + 200 × 1.25 + 300 × 10.00 = 2,500 + 250 + 3,000 = 5,750 → $0.00575
    expect(costOf(shipped, "gpt-4o", { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 200 })).toBeCloseTo(0.00575, 12);
  });

  it("a model without cached_input bills cached tokens at the input price", () => {
    const table = loadPriceTable({ "my-model": { input: 2, output: 4 } });
    // (1,000 − 500) × 2 + 500 × 2 + 250 × 4 = 1,000 + 1,000 + 1,000 = 3,000 → $0.003
    expect(costOf(table, "my-model", { prompt_tokens: 1000, completion_tokens: 250, cached_tokens: 500 })).toBeCloseTo(0.003, 12);
  });

  it("cached tokens reported beyond the prompt are capped at the prompt", () => {
    // gpt-4o-mini: 0 × 0.15 + 100 × 0.075 + 0 × 0.60 = 7.5 → $0.0000075
    expect(costOf(shipped, "gpt-4o-mini", { prompt_tokens: 100, completion_tokens: 0, cached_tokens: 999 })).toBeCloseTo(0.0000075, 15);
  });

  it("strips provider prefixes one at a time when the exact name is unknown", () => {
    // gpt-4o-mini: (10,000 − 4,000) × 0.15 + 4,000 × 0.075 + 2,000 × 0.60 = 900 + 300 + 1,200 = 2,400 → $0.0024
    const usage = { prompt_tokens: 10_000, completion_tokens: 2_000, cached_tokens: 4_000 };
    expect(costOf(shipped, "openai/gpt-4o-mini", usage)).toBeCloseTo(0.0024, 12);
    expect(costOf(shipped, "openrouter/openai/gpt-4o-mini", usage)).toBeCloseTo(0.0024, 12);
    // anthropic/claude-sonnet-4 is listed under that name: 2,000 × 3.00 + 1,000 × 15.00 = 21,000 → $0.021
    expect(costOf(shipped, "openrouter/anthropic/claude-sonnet-4", { prompt_tokens: 2000, completion_tokens: 1000 })).toBeCloseTo(0.021, 12);
  });

  it("an exact entry wins over the stripped name", () => {
    const table = loadPriceTable({ "openai/gpt-4o": { input: 1, output: 1 } });
    // 1,000 × 1 + 1,000 × 1 = 2,000 → $0.002 (not gpt-4o's 1,000 × 2.50 + 1,000 × 10.00)
    expect(costOf(table, "openai/gpt-4o", { prompt_tokens: 1000, completion_tokens: 1000 })).toBeCloseTo(0.002, 12);
    expect(priceOf(table, "gpt-4o")).toEqual({ input: 2.5, output: 10, cached_input: 1.25 });
  });

  it("is null for an unknown model, never a guess from a similar name", () => {
    const usage = { prompt_tokens: 10, completion_tokens: 10 };
    expect(costOf(shipped, "gpt-4o-2099-01-01", usage)).toBeNull();
    expect(costOf(shipped, "gemini/gemini-1.5-pro", usage)).toBeNull();
    expect(costOf(shipped, "GPT-4O", usage)).toBeNull();
    expect(costOf(shipped, "constructor", usage)).toBeNull();
  });

  it("zero tokens cost zero for a known model (not null)", () => {
    expect(costOf(shipped, "gpt-4o", { prompt_tokens: 0, completion_tokens: 0 })).toBe(0);
  });
});

describe("loadPriceTable overrides", () => {
  it("replace a shipped entry whole and add new models, leaving the rest", () => {
    const table = loadPriceTable({ "gpt-4o": { input: 3, output: 12 }, "local/llama": { input: 0, output: 0 } });
    expect(table.get("gpt-4o")).toEqual({ input: 3, output: 12 });
    expect(table.get("local/llama")).toEqual({ input: 0, output: 0 });
    expect(table.get("gpt-4o-mini")).toEqual(shipped.get("gpt-4o-mini"));
    // (1,000 − 1,000) × 3 + 1,000 × 3 (no cached price any more) + 0 × 12 = 3,000 → $0.003
    expect(costOf(table, "gpt-4o", { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 1000 })).toBeCloseTo(0.003, 12);
  });

  it("do not change the shipped table another caller loaded", () => {
    loadPriceTable({ "gpt-4o": { input: 99, output: 99 } });
    expect(loadPriceTable().get("gpt-4o")).toEqual({ input: 2.5, output: 10, cached_input: 1.25 });
  });
});

describe("parsePriceTable", () => {
  it("refuses a bad entry, naming the file and the model", () => {
    expect(() => parsePriceTable("m: {input: 1}\n", "p.yaml")).toThrow("p.yaml: m: expected {input, output, cached_input?}");
    expect(() => parsePriceTable("m: {input: -1, output: 1}\n", "p.yaml")).toThrow("p.yaml: m:");
    expect(() => parsePriceTable("- a\n", "p.yaml")).toThrow("p.yaml: expected a mapping");
  });

  it("an empty file is an empty table", () => {
    expect(parsePriceTable("# nothing\n", "p.yaml").size).toBe(0);
  });
});
