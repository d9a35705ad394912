/**
 * Reading the kwargs of the classic OpenTrace trainers (Minibatch, BasicSearch, Beamsearch,
 * UCBSearch). A kwarg that is absent takes the reference default; one of the wrong type stops
 * the job with a line naming the trainer and the kwarg, where Python would have failed later
 * with a less helpful TypeError. Kwargs a trainer does not read are ignored, as Python's
 * `**kwargs` does.
 */
import type { Kwargs } from "../../config/kwargs.js";

export class TrainerKwargError extends Error {
  override readonly name = "TrainerKwargError";
}

export interface KwargReader {
  /** An integer ≥ `min`; absent or null → `fallback`. */
  int(name: string, fallback: number, min?: number): number;
  /** An integer ≥ `min`, where null means "not set" (→ null); absent → `fallback`. */
  optionalInt(name: string, fallback: number | null, min?: number): number | null;
  /** A finite number; absent or null → `fallback`. */
  number(name: string, fallback: number): number;
  /** A finite number, where null means "not set" (→ null); absent → `fallback`. */
  optionalNumber(name: string, fallback: number | null): number | null;
  /** A boolean (numbers read as Python truthiness); absent or null → `fallback`. */
  bool(name: string, fallback: boolean): boolean;
}

export function kwargReader(trainerId: string, kwargs: Kwargs): KwargReader {
  const fail = (name: string, what: string): never => {
    throw new TrainerKwargError(`${trainerId}: kwarg '${name}' must be ${what} (got ${JSON.stringify(kwargs[name])})`);
  };
  const readInt = (name: string, min: number): number => {
    const value = kwargs[name];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) return fail(name, `an integer ≥ ${min}`);
    return value;
  };
  const readNumber = (name: string): number => {
    const value = kwargs[name];
    if (typeof value !== "number" || !Number.isFinite(value)) return fail(name, "a number");
    return value;
  };
  const absent = (name: string) => !(name in kwargs) || kwargs[name] === undefined;
  return {
    int: (name, fallback, min = 0) => (absent(name) || kwargs[name] === null ? fallback : readInt(name, min)),
    optionalInt: (name, fallback, min = 0) => (absent(name) ? fallback : kwargs[name] === null ? null : readInt(name, min)),
    number: (name, fallback) => (absent(name) || kwargs[name] === null ? fallback : readNumber(name)),
    optionalNumber: (name, fallback) => (absent(name) ? fallback : kwargs[name] === null ? null : readNumber(name)),
    bool(name, fallback) {
      if (absent(name) || kwargs[name] === null) return fallback;
      const value = kwargs[name];
      if (typeof value === "boolean") return value;
      if (typeof value === "number") return value !== 0;
      return fail(name, "true or false");
    },
  };
}

/** `num_threads` as the trainer context reads it: a positive count, else 1 (sequential). */
export function threadsOf(kwargs: Kwargs): number {
  const value = kwargs.num_threads;
  return typeof value === "number" && value >= 1 ? Math.floor(value) : 1;
}
