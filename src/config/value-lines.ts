/**
 * The source line of every mapping and list of a parsed document and of each value in them, kept
 * compact (one 32-bit slot per value, no object per container) because a 10 MB config holds
 * hundreds of thousands of them and lines are only looked up for the few messages printed.
 */

// JS puts keys like "0" or "12" before all others, so such mappings keep their own key → line map.
const isArrayIndex = (key: string): boolean => /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;

export class ValueLines {
  private lines = new Int32Array(4096);
  private used = 0;
  /** Where a container's lines start in `lines`: its own line, then one per value in insertion order. */
  private readonly start = new WeakMap<object, number>();
  private readonly keyed = new WeakMap<object, Map<string, number>>();

  /** Records a finished mapping or list: its own line and its values' lines, in insertion order. */
  record(container: object, self: number, valueLines: readonly number[], keys?: readonly string[]): void {
    if (keys !== undefined && keys.some(isArrayIndex)) {
      this.keyed.set(container, new Map(keys.map((key, i) => [key, valueLines[i]!])));
    }
    const need = this.used + 1 + valueLines.length;
    if (need > this.lines.length) {
      const grown = new Int32Array(Math.max(need, this.lines.length * 2));
      grown.set(this.lines.subarray(0, this.used));
      this.lines = grown;
    }
    this.start.set(container, this.used);
    this.lines[this.used++] = self;
    for (const line of valueLines) this.lines[this.used++] = line;
  }

  /** 1-based line of the deepest value that exists along `keyPath` from `root`. */
  lineOf(root: object, keyPath: readonly PropertyKey[]): number | undefined {
    const rootStart = this.start.get(root);
    if (rootStart === undefined) return undefined;
    let line = this.lines[rootStart]!;
    let node: unknown = root;
    for (const segment of keyPath) {
      if (typeof node !== "object" || node === null) break;
      const at = this.start.get(node);
      if (at === undefined) break;
      let index = -1;
      if (Array.isArray(node)) {
        const n = typeof segment === "number" ? segment : typeof segment === "string" && segment !== "" ? Number(segment) : NaN;
        if (Number.isInteger(n) && n >= 0 && n < node.length) index = n;
      } else if (typeof segment === "string" && Object.hasOwn(node, segment)) {
        const keyed = this.keyed.get(node)?.get(segment);
        if (keyed !== undefined) {
          line = keyed;
          node = (node as Record<string, unknown>)[segment];
          continue;
        }
        // Linear, but only a handful of lines are ever looked up.
        index = Object.keys(node).indexOf(segment);
      }
      if (index < 0) break;
      line = this.lines[at + 1 + index]!;
      node = (node as Record<PropertyKey, unknown>)[segment as string];
    }
    return line;
  }
}
