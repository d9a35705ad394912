/**
 * ParetobasedPS's exploration (algorithms reference §3.12; parity scenario gepa-names-harness):
 * the candidates to explore are the Pareto frontier of per-task scores instead of the top
 * priorities.
 *   1. Each distinct training input x is a task. A candidate's score on x is the mean of its
 *      rollouts on x; a candidate never run on x scores 0 there (the reference's rule, which with
 *      negative scores favours the unseen).
 *   2. The candidates with the highest score on some task form the pool (ties: all of them).
 *   3. A candidate is dropped when another one is best on a strict superset of its tasks.
 *   4. The rest, by overall mean (none counts as 0) descending, cut to `limit`. Ties keep the
 *      pool's order: the first task a candidate is best on, then the memory's order (highest
 *      priority, then newest; the reference uses its heap array's order here).
 */
import { candidateMean, type MemoryEntry, type SearchCandidate } from "./priority-search-memory.js";

/** A task's identity: its input as canonical JSON. */
export function taskKey(input: unknown): string {
  return JSON.stringify(input) ?? String(input);
}

/** The distinct tasks of a training set, in order of first appearance. */
export function distinctTasks(inputs: readonly unknown[]): string[] {
  return [...new Set(inputs.map(taskKey))];
}

function scoreOnTask(candidate: SearchCandidate, task: string): number {
  let sum = 0;
  let n = 0;
  candidate.scores.forEach((s, i) => {
    if (s === null || taskKey(candidate.inputs[i]) !== task) return;
    sum += s;
    n += 1;
  });
  return n === 0 ? 0 : sum / n;
}

/**
 * The frontier among `entries` (in their memory order, which breaks ties of the mean sort),
 * at most `limit` candidates.
 */
export function paretoFrontier(entries: readonly MemoryEntry[], tasks: readonly string[], limit: number): SearchCandidate[] {
  const candidates = entries.map((e) => e.candidate);
  const bestOn = new Map<SearchCandidate, Set<number>>();
  tasks.forEach((task, t) => {
    const scores = candidates.map((c) => scoreOnTask(c, task));
    const top = Math.max(...scores);
    candidates.forEach((c, i) => {
      if (scores[i] !== top) return;
      if (!bestOn.has(c)) bestOn.set(c, new Set());
      bestOn.get(c)!.add(t);
    });
  });
  const pool = [...bestOn.keys()];
  const strictSuperset = (a: Set<number>, b: Set<number>) => a.size > b.size && [...b].every((t) => a.has(t));
  const kept = pool.filter((b) => !pool.some((a) => a !== b && strictSuperset(bestOn.get(a)!, bestOn.get(b)!)));
  const mean = (c: SearchCandidate) => candidateMean(c) ?? 0;
  const descending = (x: number, y: number) => (x === y ? 0 : x > y ? -1 : 1);
  return kept
    .map((c, i) => ({ c, i }))
    .sort((x, y) => descending(mean(x.c), mean(y.c)) || x.i - y.i)
    .slice(0, limit)
    .map(({ c }) => c);
}
