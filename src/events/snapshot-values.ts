/**
 * The values a snapshot writes once and refers to by index: a run's jobs repeat the same kwargs,
 * agent names, feedback and token totals, and a snapshot that wrote them in every job was much
 * larger, reading and parsing which was most of the time to decide what to resume
 * (docs/performance.md: ledger, a8c59fb).
 */
export class SnapshotValues {
  readonly values: unknown[] = [];
  private readonly byIdentity = new Map<unknown, number>();
  private readonly byJson = new Map<string, number>();

  /** The index of a value equal (as JSON) to `value`, added if none is there yet. */
  indexOf(value: unknown): number {
    const same = this.byIdentity.get(value);
    if (same !== undefined) return same;
    const json = JSON.stringify(value);
    let index = this.byJson.get(json);
    if (index === undefined) {
      index = this.values.push(value) - 1;
      this.byJson.set(json, index);
    }
    // Shared values (one instance per value in a fold) are then found without serializing them again.
    this.byIdentity.set(value, index);
    return index;
  }
}
