/**
 * Money as people read it, everywhere trace-bench prints it (console, `runs`, `tokens`, `calls`,
 * the dashboard): dollars with four decimals (`$0.0123`, `$12.3456`), never float noise
 * (`$0.00015209999999999998`) or an exponent (`8.847e-4`). An amount that is not zero but would
 * read `$0.0000` reads `<$0.0001`, so a little spent never looks like nothing. Files keep the
 * full precision.
 */
const SMALLEST = 0.0001;

export function usdForPeople(usd: number): string {
  if (!Number.isFinite(usd)) return `$${usd}`;
  if (usd !== 0 && Math.abs(usd) < SMALLEST / 2) return usd > 0 ? `<$${SMALLEST.toFixed(4)}` : `>-$${SMALLEST.toFixed(4)}`;
  // toFixed rounds half away from zero on the decimal digits shown; -0 reads as 0.
  const fixed = Math.abs(usd).toFixed(4);
  return usd < 0 && fixed !== "0.0000" ? `-$${fixed}` : `$${fixed}`;
}
