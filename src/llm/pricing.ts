/**
 * What LLM calls cost: the price table shipped in `configs/pricing.yaml`, overridden by a run
 * config's `pricing:`, and the cost of one call's token usage. An unknown model has no cost
 * (null), never a guessed one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../fs/package-root.js";
import { parse } from "yaml";

/** US dollars per 1 million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Prompt tokens served from the provider's cache; absent = billed at `input`. */
  readonly cached_input?: number;
}

/** Model name → price. A Map, so model names like `constructor` are plain keys. */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

export interface TokenUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  /** Part of prompt_tokens. */
  readonly cached_tokens?: number;
}

const SHIPPED_FILE = join("configs", "pricing.yaml");

/** The shipped price file, in the package root. */
export function shippedPricingPath(): string {
  return join(packageRoot(), SHIPPED_FILE);
}

const isPrice = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

/** Parses a price file: a mapping of model → {input, output, cached_input?}. Throws naming the bad entry. */
export function parsePriceTable(text: string, path: string): Map<string, ModelPrice> {
  const data: unknown = parse(text);
  if (data === null || data === undefined) return new Map();
  if (typeof data !== "object" || Array.isArray(data)) throw new Error(`${path}: expected a mapping of model name to {input, output, cached_input}`);
  const table = new Map<string, ModelPrice>();
  for (const [model, entry] of Object.entries(data)) {
    const price = entry as Record<string, unknown> | null;
    const ok =
      typeof price === "object" && price !== null && isPrice(price.input) && isPrice(price.output) && (price.cached_input === undefined || isPrice(price.cached_input));
    if (!ok) throw new Error(`${path}: ${model}: expected {input, output, cached_input?} in US dollars per 1M tokens, each a number ≥ 0`);
    table.set(model, { input: price.input as number, output: price.output as number, ...(price.cached_input === undefined ? {} : { cached_input: price.cached_input as number }) });
  }
  return table;
}

/**
 * The shipped table with `overrides` (a config's `pricing:`) on top. An override replaces the
 * whole entry: one without cached_input bills cached tokens at its input price.
 */
export function loadPriceTable(overrides: Readonly<Record<string, ModelPrice>> = {}, path: string = shippedPricingPath()): PriceTable {
  const table = parsePriceTable(readFileSync(path, "utf8"), path);
  for (const [model, price] of Object.entries(overrides)) table.set(model, price);
  return table;
}

/** The model's price: its exact name, else the name without leading `provider/` prefixes, one at a time. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  let name = model;
  for (;;) {
    const price = table.get(name);
    if (price !== undefined) return price;
    const slash = name.indexOf("/");
    if (slash < 0) return undefined;
    name = name.slice(slash + 1);
  }
}

/** US dollars for one call's usage; null when the model is not in the table. */
export function costOf(table: PriceTable, model: string, usage: TokenUsage): number | null {
  const price = priceOf(table, model);
  if (price === undefined) return null;
  // Cached tokens are part of the prompt; a report claiming more than the prompt is capped at it.
  const cached = Math.min(Math.max(usage.cached_tokens ?? 0, 0), usage.prompt_tokens);
  const uncached = usage.prompt_tokens - cached;
  return (uncached * price.input + cached * (price.cached_input ?? price.input) + usage.completion_tokens * price.output) / 1_000_000;
}
