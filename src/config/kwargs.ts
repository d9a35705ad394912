/** Keyword-argument mappings as they come from config files (values may hold `PyFloat`s). */
import { PyFloat } from "../codec/python-json.js";

export type Kwargs = Record<string, unknown>;

export function isKwargs(value: unknown): value is Kwargs {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof PyFloat);
}

/** A deep copy, so no two jobs or config entries share a mutable mapping. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (isKwargs(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneValue(v)])) as T;
  return value;
}

/**
 * `merge_kwargs(base, override)` of spec §2.7: shallow dict merge, with lists meaning "one entry
 * per parameter group" (a dict override applies to each group; list × list merges element-wise).
 */
export function mergeKwargs(base: unknown, override: unknown): unknown {
  if (override === null || override === undefined) return cloneValue(base);
  if (base === null || base === undefined) return cloneValue(override);
  if (isKwargs(base) && isKwargs(override)) return { ...cloneValue(base), ...cloneValue(override) };
  if (Array.isArray(base) && isKwargs(override)) {
    if (base.length === 0) return [cloneValue(override)];
    return base.map((item) => (isKwargs(item) || Array.isArray(item) ? mergeKwargs(item, override) : cloneValue(item)));
  }
  if (isKwargs(base) && Array.isArray(override)) {
    if (override.length === 0) return cloneValue(base);
    return override.map((item) => mergeKwargs(base, item));
  }
  if (Array.isArray(base) && Array.isArray(override)) {
    const length = Math.max(base.length, override.length);
    return Array.from({ length }, (_, i) => mergeKwargs(base[i], override[i]));
  }
  return cloneValue(override);
}

/** The same value with `PyFloat`s as plain numbers: what tasks and trainers receive. */
export function toPlain<T>(value: T): T {
  if (value instanceof PyFloat) return value.value as T;
  if (Array.isArray(value)) return value.map(toPlain) as T;
  if (isKwargs(value) && !(value instanceof Date)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)])) as T;
  return value;
}
