/**
 * `value` and everything in it made read-only, in place. Values shared by many jobs (a matrix
 * cell's kwargs, a fold's repeated payloads) are frozen so that a stray write throws instead of
 * changing every job at once.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
