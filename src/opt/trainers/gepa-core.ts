/**
 * The GEPA (+Merge) search loop shared by GEPA-Base, GEPA-UCB and GEPA-Beam (algorithms
 * reference §3.13; OpenTrace `opto/features/gepa/gepa_algorithms.py`).
 *
 * A candidate is a full set of parameter values scored on a fixed Pareto subset (sampled once,
 * without replacement, from the validate set, else the train set). Each iteration samples a parent
 * with weights max(1, wins)^(1/T) (T = 1), mutates it with one optimizer proposal on a train
 * minibatch (the parent's values fill whatever the proposal leaves unchanged), scores the child on
 * the whole Pareto subset and adds it (no acceptance gate). Every `merge_every` iterations up to 8
 * random pairs are tried for a uniform per-parameter crossover, accepted only when its mean beats
 * both parents'. The buffer is then bounded (variant-specific). The max-mean candidate is returned.
 *
 * Deliberate departures from the Python code (what its authors meant, reference §7):
 * - An exception-free but empty proposal (TERMINATE, unreadable reply, or values equal to the
 *   parent's) adds no duplicate of the parent (quirk 14): the iteration is skipped with a note.
 * - A child stores all parameter values (Python stored only the changed ones).
 * - Candidate ids come from a counter (Base/Beam used `len(buffer)`, which repeats after trimming
 *   and breaks the ancestry check).
 * - A crossover that reproduces one of its parents is not evaluated (it cannot beat that parent
 *   except by noise, and would duplicate it); the try still counts and the pair is marked tried.
 * - GEPA-UCB evicts down to `max_buffer_size` (Python evicted one per iteration, so an accepted
 *   merge grew the buffer past its limit).
 * - An invalid per-instance score (null) counts as −∞ in the win count (Python compared None).
 *
 * Randomness (all from `context.rng`, in this order, which makes a seed reproducible):
 *   1. Pareto subset: `sampleWithoutReplacement` over the validate (else train) examples.
 *   2. Each iteration: one `rng.next()` for the parent (also with a single candidate), then
 *      `sampleWithoutReplacement` over the train examples for the minibatch.
 *   3. Each merge try: two `rng.int` for the pair (Python's `rng.sample(range(n), 2)`), then, for
 *      an eligible pair, one `rng.next()` per trainable parameter (in declaration order).
 */
import type { Kwargs } from "../../config/kwargs.js";
import { sampleWithoutReplacement } from "../data-loader.js";
import type { Optimizer } from "../optimizer.js";
import type { JsonValue } from "../../domain/json-value.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { Rng } from "../rng.js";
import { examplesOf, type Example } from "../rollout.js";
import type { TrainerContext, TrainerResult } from "../trainer.js";

export interface GepaCandidate {
  readonly id: number;
  /** Every parameter's value (trainable or not). */
  readonly values: ParameterValues;
  /** Per-instance scores on the Pareto subset (null: the example failed). */
  readonly evalVector: readonly (number | null)[];
  /** Mean of `evalVector`; −∞ when any score is null (Python's rule). */
  readonly mean: number;
  readonly parentIds: readonly number[];
  readonly ancestors: ReadonlySet<number>;
  readonly createdIter: number;
  /** Instances this candidate is strictly best on; refreshed by `computeWins`. */
  wins: number;
}

/** How a variant keeps its buffer bounded. */
export type BufferPolicy =
  /** GEPA-Base / GEPA-Beam: sort by (wins, mean) descending and keep the first `limit`. */
  | "keep-top"
  /** GEPA-UCB: sort by (wins, mean) ascending and evict from the front until `limit` remain. */
  | "evict-lowest";

export interface GepaVariant {
  readonly id: string;
  /** Which kwarg bounds the loop. */
  readonly iterationsKwarg: "num_iters" | "num_search_iterations";
  readonly defaults: {
    readonly iterations: number;
    readonly trainBatchSize: number;
    readonly mergeEvery: number;
    readonly paretoSubsetSize: number;
    readonly maxBufferSize: number;
  };
  readonly bufferPolicy: BufferPolicy;
  /** The kwarg that overrides the buffer limit, if the variant has one. */
  readonly bufferSizeKwarg?: string;
}

export interface GepaSettings {
  readonly iterations: number;
  readonly trainBatchSize: number;
  /** 0 = never merge. */
  readonly mergeEvery: number;
  readonly paretoSubsetSize: number;
  readonly maxBufferSize: number;
}

/** Python's `_compute_pareto_counts`: per instance, the first candidate with the strictly highest score gets a win. */
export function computeWins(candidates: readonly GepaCandidate[]): void {
  for (const c of candidates) c.wins = 0;
  const length = candidates[0]?.evalVector.length ?? 0;
  for (let m = 0; m < length; m++) {
    let bestIndex = -1;
    let bestValue = -Infinity;
    candidates.forEach((c, i) => {
      const v = c.evalVector[m] ?? -Infinity;
      if (v > bestValue) {
        bestValue = v;
        bestIndex = i;
      }
    });
    if (bestIndex >= 0) candidates[bestIndex]!.wins += 1;
  }
}

/** Parent weights: max(1, wins)^(1/T). */
export function parentWeights(candidates: readonly GepaCandidate[], temperature = 1): number[] {
  return candidates.map((c) => Math.max(1, c.wins) ** (1 / Math.max(1e-6, temperature)));
}

/** Python's `_pareto_sample`: refreshes wins, then draws one candidate by weight (argmax when T ≤ 0, no draw). */
export function sampleParent(candidates: readonly GepaCandidate[], rng: Rng, temperature = 1): GepaCandidate {
  if (candidates.length === 0) throw new Error("GEPA: empty candidate buffer");
  computeWins(candidates);
  if (temperature <= 0) {
    let best = 0;
    candidates.forEach((c, i) => {
      if (Math.max(1, c.wins) > Math.max(1, candidates[best]!.wins)) best = i;
    });
    return candidates[best]!;
  }
  const weights = parentWeights(candidates, temperature);
  const total = weights.reduce((s, w) => s + w, 0);
  const target = rng.next() * total;
  let cumulative = 0;
  for (let i = 0; i < candidates.length; i++) {
    cumulative += weights[i]!;
    if (target < cumulative) return candidates[i]!;
  }
  return candidates[candidates.length - 1]!;
}

/** Two distinct indices in [0, n) (Python's `rng.sample(range(n), 2)`). */
export function samplePair(n: number, rng: Rng): [number, number] {
  const i = rng.int(n);
  let j = rng.int(n - 1);
  if (j >= i) j += 1;
  return [i, j];
}

/** Python's `_uniform_merge_params`: each trainable parameter from `a` or `b` with probability ½. */
export function uniformMerge(a: ParameterValues, b: ParameterValues, trainable: readonly string[], rng: Rng): ParameterValues {
  const merged: Record<string, JsonValue> = { ...a };
  for (const name of trainable) {
    const fromA = rng.next() < 0.5;
    const value = fromA ? a[name] : b[name];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

const byWinsThenMean = (x: GepaCandidate, y: GepaCandidate) => x.wins - y.wins || compareNumbers(x.mean, y.mean);

function compareNumbers(x: number, y: number): number {
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Candidates by (wins, mean), best first (stable, like Python's `sort(reverse=True)`). */
export function rankByWinsAndMean(candidates: readonly GepaCandidate[]): GepaCandidate[] {
  computeWins(candidates);
  return [...candidates].sort((x, y) => byWinsThenMean(y, x));
}

/** Bounds the buffer in place; returns the evicted candidates. */
export function trimBuffer(buffer: GepaCandidate[], limit: number, policy: BufferPolicy): GepaCandidate[] {
  if (buffer.length <= limit) return [];
  computeWins(buffer);
  if (policy === "keep-top") {
    buffer.sort((x, y) => byWinsThenMean(y, x));
    return buffer.splice(limit);
  }
  buffer.sort(byWinsThenMean);
  return buffer.splice(0, buffer.length - limit);
}

/** The first candidate with the highest mean (Python's `max(buffer, key=mean)`). */
export function bestByMean(buffer: readonly GepaCandidate[]): GepaCandidate {
  let best = buffer[0]!;
  for (const c of buffer) if (c.mean > best.mean) best = c;
  return best;
}

export function sameValue(x: JsonValue | undefined, y: JsonValue | undefined): boolean {
  return JSON.stringify(x) === JSON.stringify(y);
}

function sameValues(x: ParameterValues, y: ParameterValues, names: readonly string[]): boolean {
  return names.every((name) => sameValue(x[name], y[name]));
}

const finiteOrNull = (x: number | null | undefined): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);

function vectorMean(vector: readonly (number | null)[]): number {
  if (vector.length === 0 || vector.some((v) => v === null)) return -Infinity;
  return (vector as number[]).reduce((s, v) => s + v, 0) / vector.length;
}

function formatMean(mean: number): string {
  return Number.isFinite(mean) ? String(Math.round(mean * 1e6) / 1e6) : "invalid";
}

/** An integer kwarg: absent or null → fallback; anything else must be an integer ≥ min. */
export function integerKwarg(kwargs: Kwargs, name: string, fallback: number, min: number, owner: string): number {
  const raw = kwargs[name];
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < min) {
    throw new Error(`${owner}: ${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

export function gepaSettings(kwargs: Kwargs, variant: GepaVariant): GepaSettings {
  const { defaults, id } = variant;
  // Python: `if merge_every and it % merge_every == 0` — an explicit None/0 disables merging.
  const mergeEvery = kwargs.merge_every === null ? 0 : integerKwarg(kwargs, "merge_every", defaults.mergeEvery, 0, id);
  return {
    iterations: integerKwarg(kwargs, variant.iterationsKwarg, defaults.iterations, 0, id),
    trainBatchSize: integerKwarg(kwargs, "train_batch_size", defaults.trainBatchSize, 1, id),
    mergeEvery,
    paretoSubsetSize: integerKwarg(kwargs, "pareto_subset_size", defaults.paretoSubsetSize, 1, id),
    maxBufferSize: variant.bufferSizeKwarg ? integerKwarg(kwargs, variant.bufferSizeKwarg, defaults.maxBufferSize, 1, id) : defaults.maxBufferSize,
  };
}

const MAX_MERGE_TRIES = 8;

type Mutation = { readonly kind: "child"; readonly values: ParameterValues } | { readonly kind: "skip"; readonly reason: string };

/** One GEPA run (all three variants differ only in defaults, kwarg names and buffer policy). */
export async function runGepa(context: TrainerContext, variant: GepaVariant): Promise<TrainerResult> {
  const { rng, signal } = context;
  const settings = gepaSettings(context.kwargs, variant);
  const label = variant.id;

  const trainExamples = examplesOf(context.train);
  if (trainExamples.length === 0) throw new Error(`${label}: the train dataset is empty`);
  const validateExamples = context.validate ? examplesOf(context.validate) : [];
  const paretoSource = validateExamples.length > 0 ? validateExamples : trainExamples;
  const pareto: Example[] = sampleWithoutReplacement(paretoSource, Math.min(settings.paretoSubsetSize, paretoSource.length), rng);

  const trainable = context.parameters.filter((p) => p.trainable).map((p) => p.name);
  const optimizer: Optimizer = context.createOptimizer();
  let nextId = 0;

  const evaluate = async (values: ParameterValues) => {
    const rollouts = await context.rollout(values, pareto, { minScore: null });
    const evalVector = rollouts.map((r) => finiteOrNull(r.score));
    return { evalVector, mean: vectorMean(evalVector) };
  };

  const mutate = async (parent: GepaCandidate, batch: readonly Example[]): Promise<Mutation> => {
    // Trace's standard forward step: a failing example scores 0 and shows its error as feedback.
    const rollouts = await context.rollout(parent.values, batch, { minScore: 0 });
    const problem = context.problem(parent.values, rollouts);
    let proposal;
    try {
      proposal = await optimizer.propose(problem, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return { kind: "skip", reason: `the optimizer failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    for (const note of proposal.notes) context.note(note);
    const proposed = Object.keys(proposal.update);
    if (proposed.length === 0) {
      const why = proposal.terminated
        ? "the optimizer answered TERMINATE"
        : proposal.notes.some((n) => n.startsWith("unreadable reply"))
          ? "the reply could not be read"
          : proposal.notes.length > 0
            ? "no proposed value could be used"
            : "the optimizer proposed no change";
      return { kind: "skip", reason: why };
    }
    if (proposed.every((name) => sameValue(proposal.update[name], parent.values[name]))) {
      return { kind: "skip", reason: "the proposal repeats the parent's values" };
    }
    return { kind: "child", values: { ...parent.values, ...proposal.update } };
  };

  const triedPairs = new Set<string>();
  const maybeMerge = async (buffer: GepaCandidate[], iteration: number): Promise<string> => {
    if (buffer.length < 2) return "merge: fewer than two candidates";
    const pool = rankByWinsAndMean(buffer);
    const tries: string[] = [];
    for (let t = 0; t < MAX_MERGE_TRIES; t++) {
      const [i, j] = samplePair(pool.length, rng);
      const a = pool[i]!;
      const b = pool[j]!;
      if (a.id === b.id || a.ancestors.has(b.id) || b.ancestors.has(a.id)) continue;
      const key = `${Math.min(a.id, b.id)},${Math.max(a.id, b.id)}`;
      if (triedPairs.has(key)) continue;
      triedPairs.add(key);
      const values = uniformMerge(a.values, b.values, trainable, rng);
      const pair = `#${a.id}×#${b.id}`;
      if (sameValues(values, a.values, trainable) || sameValues(values, b.values, trainable)) {
        tries.push(`${pair} reproduces a parent (not evaluated)`);
        continue;
      }
      const scored = await evaluate(values);
      if (scored.mean > Math.max(a.mean, b.mean)) {
        const merged: GepaCandidate = {
          id: nextId++,
          values,
          ...scored,
          parentIds: [a.id, b.id],
          ancestors: new Set([...a.ancestors, ...b.ancestors, a.id, b.id]),
          createdIter: iteration,
          wins: 0,
        };
        buffer.push(merged);
        tries.push(`${pair} → #${merged.id} mean ${formatMean(merged.mean)} beats both parents (${formatMean(a.mean)}, ${formatMean(b.mean)}): accepted`);
        return `merge: ${tries.join("; ")}`;
      }
      tries.push(`${pair} mean ${formatMean(scored.mean)} does not beat both parents (${formatMean(a.mean)}, ${formatMean(b.mean)})`);
    }
    return tries.length === 0 ? "merge: no eligible pair (untried and not related by ancestry)" : `merge: ${tries.join("; ")}; nothing accepted`;
  };

  const seed = await evaluate(context.initialValues);
  const buffer: GepaCandidate[] = [
    { id: nextId++, values: { ...context.initialValues }, ...seed, parentIds: [], ancestors: new Set(), createdIter: 0, wins: 0 },
  ];

  for (let iteration = 1; iteration <= settings.iterations; iteration++) {
    signal.throwIfAborted();
    const parent = sampleParent(buffer, rng);
    const batch = sampleWithoutReplacement(trainExamples, Math.min(settings.trainBatchSize, trainExamples.length), rng);
    const mutation = await mutate(parent, batch);
    let childScore: number | null = null;
    if (mutation.kind === "skip") {
      // As in Python, a skipped iteration neither merges nor trims.
      context.note(`${label}: no child from parent #${parent.id}: ${mutation.reason}; buffer unchanged`);
    } else {
      const scored = await evaluate(mutation.values);
      const child: GepaCandidate = {
        id: nextId++,
        values: mutation.values,
        ...scored,
        parentIds: [parent.id],
        ancestors: new Set([...parent.ancestors, parent.id]),
        createdIter: iteration,
        wins: 0,
      };
      buffer.push(child);
      childScore = finiteOrNull(child.mean);
      if (childScore === null) context.note(`${label}: child #${child.id} failed on part of the Pareto subset (mean −∞)`);
      if (settings.mergeEvery > 0 && iteration % settings.mergeEvery === 0) context.note(await maybeMerge(buffer, iteration));
      const evicted = trimBuffer(buffer, settings.maxBufferSize, variant.bufferPolicy);
      if (evicted.length > 0) context.note(`${label}: evicted ${evicted.map((c) => `#${c.id}`).join(", ")} (lowest wins, mean)`);
    }
    const best = bestByMean(buffer);
    context.emit({ step: iteration, score: childScore, best_score: finiteOrNull(best.mean), values: best.values });
  }
  return { values: bestByMean(buffer).values };
}
