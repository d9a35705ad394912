/** Timestamps as the Python Trace-Bench writes them into the run directory's files. */

/** Python's `datetime.utcnow().isoformat() + "Z"`: microseconds only when non-zero. */
export function pythonUtcIso(now: Date): string {
  const iso = now.toISOString();
  const ms = now.getUTCMilliseconds();
  return ms === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${String(ms).padStart(3, "0")}000Z`;
}
