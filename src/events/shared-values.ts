/**
 * One instance for equal values. A run's matrix and its jobs' outcomes repeat the same resolved
 * kwargs, names and parameter lists in every job, and each event payload parsed from the log is a
 * fresh copy of them: folded as they come, every job held copies of the same empty objects and
 * strings (docs/performance.md: ledger, 4495d7b). Shared values are frozen: the fold treats
 * payloads as read-only, and freezing turns a stray write into an error instead of a change to
 * every job at once.
 */
import { deepFreeze } from "../config/deep-freeze.js";

/** Strings longer than this are not looked up: the table would hold every job's unique text. */
const SHARED_STRING_MAX = 256;

export class SharedValues {
  private readonly byJson = new Map<string, unknown>();
  private readonly strings = new Map<string, string>();
  /** The objects `byJson` holds: asked about one of them again, the answer needs no serializing. */
  private readonly instances = new WeakSet<object>();

  /** The first value seen that is equal (as JSON) to `value`; `value` itself when it is the first. */
  value<T>(value: T): T {
    if (typeof value === "string") return this.string(value) as T;
    if (value === null || typeof value !== "object") return value;
    if (this.instances.has(value)) return value;
    const key = JSON.stringify(value);
    const known = this.byJson.get(key);
    if (known !== undefined) return known as T;
    this.byJson.set(key, deepFreeze(value));
    this.instances.add(value);
    return value;
  }

  /** The first equal string seen; a long one (an LLM's feedback, unlikely to repeat) is not kept. */
  string(text: string): string {
    if (text.length > SHARED_STRING_MAX) return text;
    const known = this.strings.get(text);
    if (known !== undefined) return known;
    this.strings.set(text, text);
    return text;
  }
}
