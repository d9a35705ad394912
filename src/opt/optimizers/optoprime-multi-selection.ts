/**
 * OptoPrimeMulti's selection (OpenTrace `select_candidate`): which of a step's candidate replies
 * becomes the step's reply.
 *
 * - best_of_n: one more call shows every candidate and asks for the most promising one;
 * - moa (mixture of agents): one more call asks for a reply combining the best of all;
 * - majority: no call; candidates are clustered by text similarity (complete linkage, distance
 *   1 − difflib ratio, merged while below 0.2) and the medoid of the largest cluster wins; one
 *   cluster for all, or a tie, as the original decides;
 * - last_of_n: the last candidate.
 *
 * No candidate selects nothing; a single candidate is selected without a call; a selection call
 * that fails or answers nothing selects the last candidate.
 */
import type { SelectionTechnique } from "./optoprime-multi-options.js";
import type { AskMany } from "./optoprime-multi-generation.js";
import { BEST_OF_N_SYSTEM_PROMPT, MIXTURE_SYSTEM_PROMPT, selectionUserPrompt } from "./optoprime-multi-prompts.js";
import { similarityRatio } from "./sequence-similarity.js";

/** The distance below which majority merges clusters (sklearn's distance_threshold in the original). */
export const MAJORITY_DISTANCE = 0.2;

/**
 * Complete-linkage clusters of `n` items under `distance`, merging the closest pair while it is
 * closer than `threshold`; each cluster's members in ascending order, clusters by first member.
 */
export function completeLinkageClusters(n: number, distance: (i: number, j: number) => number, threshold: number): number[][] {
  let clusters = Array.from({ length: n }, (_, i) => [i]);
  const linkage = (a: readonly number[], b: readonly number[]) => Math.max(...a.flatMap((i) => b.map((j) => distance(i, j))));
  for (;;) {
    let best: [number, number, number] | null = null;
    for (let x = 0; x < clusters.length; x++) {
      for (let y = x + 1; y < clusters.length; y++) {
        const d = linkage(clusters[x]!, clusters[y]!);
        if (best === null || d < best[2]) best = [x, y, d];
      }
    }
    if (best === null || best[2] >= threshold) break;
    const [x, y] = best;
    const merged = [...clusters[x]!, ...clusters[y]!].sort((a, b) => a - b);
    clusters = clusters.filter((_, k) => k !== x && k !== y);
    clusters.push(merged);
  }
  return clusters.sort((a, b) => a[0]! - b[0]!);
}

/** The index majority selects among texts (at least two). */
export function majorityIndex(texts: readonly string[]): number {
  const n = texts.length;
  const d: number[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => 0));
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) d[i]![j] = d[j]![i] = 1 - similarityRatio(texts[i]!, texts[j]!);
  const clusters = completeLinkageClusters(n, (i, j) => d[i]![j]!, MAJORITY_DISTANCE);
  if (clusters.length === 1) return n - 1;
  // The largest cluster; among equals, the one seen first in candidate order (Counter.most_common).
  let largest = clusters[0]!;
  for (const cluster of clusters) if (cluster.length > largest.length) largest = cluster;
  // Its medoid: the member with the least total distance to the others (the first on ties).
  let medoid = largest[0]!;
  let least = Infinity;
  for (const i of largest) {
    const total = largest.reduce((sum, j) => sum + d[i]![j]!, 0);
    if (total < least) {
      least = total;
      medoid = i;
    }
  }
  return medoid;
}

export interface Selection {
  /** The selected reply (null: there was no candidate). */
  readonly reply: string | null;
  /** How it was chosen, for the step's notes. */
  readonly how: string;
}

export async function selectCandidate(candidates: readonly string[], technique: SelectionTechnique, problem: string, ask: AskMany): Promise<Selection> {
  if (candidates.length === 0) return { reply: null, how: "no candidate to select from" };
  if (candidates.length === 1) return { reply: candidates[0]!, how: "the only candidate" };
  const last = candidates.at(-1)!;
  switch (technique) {
    case "best_of_n":
    case "moa": {
      const [system, label] = technique === "best_of_n" ? [BEST_OF_N_SYSTEM_PROMPT, "Candidate" as const] : [MIXTURE_SYSTEM_PROMPT, "Response" as const];
      const [reply] = await ask([{ system, user: selectionUserPrompt(problem, label, candidates), temperature: 0 }]);
      if (reply === null || reply === undefined || reply === "") return { reply: last, how: `${technique} answered nothing; the last of ${candidates.length} candidates` };
      return { reply, how: `${technique} over ${candidates.length} candidates` };
    }
    case "majority": {
      const index = majorityIndex(candidates);
      return { reply: candidates[index]!, how: `majority: candidate ${index + 1} of ${candidates.length}` };
    }
    case "last_of_n":
      return { reply: last, how: `the last of ${candidates.length} candidates` };
  }
}
