/**
 * The GEPA (+Merge) search loop shared by GEPA-Base, GEPA-UCB and GEPA-Beam (algorithms
 * reference §3.13; OpenTrace `opto/features/gepa/gepa_algorithms.py`). It computes what the
 * reference computes (parity scenario gepa-code):
 *
 * - The agent holds one set of values, changed only by *applying* a candidate's parameters on top
 *   of whatever it holds. A candidate stores the parameters it was made of: the seed all of them,
 *   a child only those the optimizer returned, a merge the union of its parents' keys. So a child
 *   {b: 5} is scored with the `a` the agent held then, and the final agent (the best mean applied
 *   last) may hold values that were never scored together.
 * - Pareto subset: sampled once, without replacement, from the validate (else train) examples;
 *   GEPA-UCB too, whose reference raises TypeError on the `validate_dataset` the harness passes.
 * - Each iteration: a parent drawn with weights max(1, wins)^(1/T) (T = 1) is applied; one
 *   optimizer proposal on a train minibatch (drawn without replacement) gives the child. An
 *   empty proposal (TERMINATE, an unreadable reply) gives a child that is a full copy of the
 *   agent's values; an optimizer error skips the iteration. The child is applied, scored on the
 *   whole Pareto subset and added (no acceptance gate).
 * - Every `merge_every` iterations up to 8 random pairs of the buffer ranked by (wins, mean) are
 *   tried; a pair is skipped when it is one candidate, related by ancestry or tried before (in
 *   any earlier merge). A parameter both parents have comes from either with probability ½ (one
 *   draw each, in declaration order), one only one parent has is taken from it. The merge is
 *   applied and scored, and kept only when its mean beats both parents'.
 * - Ids: GEPA-Base and GEPA-Beam number a candidate by the buffer's length (so ids repeat once
 *   the buffer is trimmed), GEPA-UCB by a counter from 1. Base/Beam keep the top `limit` by
 *   (wins, mean); UCB evicts the one lowest (wins, mean) candidate when over its limit.
 * - A candidate's mean is −∞ when any of its Pareto scores is invalid; wins go, per instance, to
 *   the first candidate with the strictly highest score (an invalid score counts as −∞).
 *
 * Randomness comes from two forks of `context.rng`, as the reference has two generators:
 * "gepa/numpy" draws the Pareto subset then each iteration's minibatch (numpy there);
 * "gepa/random" draws each parent (one `next()`, also with a single candidate), each merge pair
 * (two `int`s, Python's `rng.sample(range(n), 2)`) and each crossover choice (one `next()`)
 * (`random.Random` there).
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
  /** The parameters it is made of: all of them for the seed, a child's those the optimizer returned. */
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
  /** GEPA-UCB: sort by (wins, mean) ascending and evict the first one (one per iteration). */
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
  /** How candidates are numbered: by the buffer's length at creation (ids repeat after trims), or a counter from 1. */
  readonly ids: "buffer-length" | "counter";
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

/**
 * Python's `_uniform_merge_params`: the union of the two parents' parameters; one both have comes
 * from `a` when a draw is below ½, else from `b` (one draw per shared parameter, in `names` order).
 */
export function uniformMerge(a: ParameterValues, b: ParameterValues, names: readonly string[], rng: Rng): ParameterValues {
  const merged: Record<string, JsonValue> = {};
  for (const name of names) {
    const inA = Object.hasOwn(a, name);
    const inB = Object.hasOwn(b, name);
    if (inA && inB) merged[name] = rng.next() < 0.5 ? a[name]! : b[name]!;
    else if (inA) merged[name] = a[name]!;
    else if (inB) merged[name] = b[name]!;
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
  return buffer.splice(0, 1);
}

/** The first candidate with the highest mean (Python's `max(buffer, key=mean)`). */
export function bestByMean(buffer: readonly GepaCandidate[]): GepaCandidate {
  let best = buffer[0]!;
  for (const c of buffer) if (c.mean > best.mean) best = c;
  return best;
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

/** What a run did, for tests and diagnostics. */
export type GepaEvent =
  | { readonly kind: "parent"; readonly iteration: number; readonly buffer: readonly { id: number; wins: number; mean: number }[]; readonly parentId: number }
  | { readonly kind: "candidate"; readonly candidate: GepaCandidate; readonly phase: "seed" | "child" | "merge" }
  | { readonly kind: "merge"; readonly iteration: number; readonly poolIds: readonly number[]; readonly evaluated: readonly { values: ParameterValues; evalVector: readonly (number | null)[] }[]; readonly accepted: boolean };

type Mutation = { readonly kind: "child"; readonly values: ParameterValues } | { readonly kind: "skip"; readonly reason: string };

/** One GEPA run (all three variants differ only in defaults, kwarg names, ids and buffer policy). */
export async function runGepa(context: TrainerContext, variant: GepaVariant, observer?: (event: GepaEvent) => void): Promise<TrainerResult> {
  const { signal } = context;
  const numpyRng = context.rng.fork("gepa/numpy");
  const randomRng = context.rng.fork("gepa/random");
  const settings = gepaSettings(context.kwargs, variant);
  const label = variant.id;

  const trainExamples = examplesOf(context.train);
  if (trainExamples.length === 0) throw new Error(`${label}: the train dataset is empty`);
  const validateExamples = context.validate ? examplesOf(context.validate) : [];
  const paretoSource = validateExamples.length > 0 ? validateExamples : trainExamples;
  const pareto: Example[] = sampleWithoutReplacement(paretoSource, Math.min(settings.paretoSubsetSize, paretoSource.length), numpyRng);

  const names = context.parameters.map((p) => p.name);
  const optimizer: Optimizer = context.createOptimizer();
  let counter = 1;
  const buffer: GepaCandidate[] = [];
  const nextId = () => (variant.ids === "counter" ? counter++ : buffer.length);

  /** What the agent holds; a candidate is applied on top of it. */
  let held: ParameterValues = { ...context.initialValues };
  const apply = (values: ParameterValues) => {
    held = { ...held, ...values };
  };

  /** Applies `values` and scores the agent on the Pareto subset. */
  const evaluate = async (values: ParameterValues) => {
    apply(values);
    const rollouts = await context.rollout(held, pareto, { minScore: null });
    const evalVector = rollouts.map((r) => finiteOrNull(r.score));
    return { evalVector, mean: vectorMean(evalVector) };
  };

  const mutate = async (parent: GepaCandidate, batch: readonly Example[]): Promise<Mutation> => {
    // Trace's standard forward step: a failing example scores 0 and shows its error as feedback.
    const rollouts = await context.rollout(held, batch, { minScore: 0 });
    const problem = context.problem(held, rollouts);
    let proposal;
    try {
      proposal = await optimizer.propose(problem, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return { kind: "skip", reason: `the optimizer failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    for (const note of proposal.notes) context.note(note);
    if (Object.keys(proposal.update).length > 0) return { kind: "child", values: { ...proposal.update } };
    const why = proposal.terminated ? "the optimizer answered TERMINATE" : proposal.notes.length > 0 ? "no proposed value could be used" : "the optimizer proposed no change";
    // The reference adds a copy of the agent's values as the child.
    context.note(`${label}: ${why}; the child of #${parent.id} is a copy of the agent's values`);
    return { kind: "child", values: { ...held } };
  };

  const triedPairs = new Set<string>();
  const maybeMerge = async (iteration: number): Promise<string> => {
    if (buffer.length < 2) return "merge: fewer than two candidates";
    const pool = rankByWinsAndMean(buffer);
    const tries: string[] = [];
    const evaluated: { values: ParameterValues; evalVector: readonly (number | null)[] }[] = [];
    const report = (accepted: boolean) => observer?.({ kind: "merge", iteration, poolIds: pool.map((c) => c.id), evaluated, accepted });
    for (let t = 0; t < MAX_MERGE_TRIES; t++) {
      const [i, j] = samplePair(pool.length, randomRng);
      const a = pool[i]!;
      const b = pool[j]!;
      if (a.id === b.id || a.ancestors.has(b.id) || b.ancestors.has(a.id)) continue;
      const key = `${Math.min(a.id, b.id)},${Math.max(a.id, b.id)}`;
      if (triedPairs.has(key)) continue;
      triedPairs.add(key);
      const values = uniformMerge(a.values, b.values, names, randomRng);
      const pair = `#${a.id}×#${b.id}`;
      // On record as a child of both parents (as the agent holds each).
      context.derived?.({ ...held, ...values }, [{ ...held, ...a.values }, { ...held, ...b.values }]);
      const scored = await evaluate(values);
      evaluated.push({ values, evalVector: scored.evalVector });
      if (scored.mean > Math.max(a.mean, b.mean)) {
        const merged: GepaCandidate = {
          id: nextId(),
          values,
          ...scored,
          parentIds: [a.id, b.id],
          ancestors: new Set([...a.ancestors, ...b.ancestors, a.id, b.id]),
          createdIter: iteration,
          wins: 0,
        };
        buffer.push(merged);
        observer?.({ kind: "candidate", candidate: merged, phase: "merge" });
        report(true);
        tries.push(`${pair} → #${merged.id} mean ${formatMean(merged.mean)} beats both parents (${formatMean(a.mean)}, ${formatMean(b.mean)}): accepted`);
        return `merge: ${tries.join("; ")}`;
      }
      tries.push(`${pair} mean ${formatMean(scored.mean)} does not beat both parents (${formatMean(a.mean)}, ${formatMean(b.mean)})`);
    }
    report(false);
    return tries.length === 0 ? "merge: no eligible pair (untried and not related by ancestry)" : `merge: ${tries.join("; ")}; nothing accepted`;
  };

  const seedValues = { ...context.initialValues };
  const seedId = nextId();
  const seed: GepaCandidate = { id: seedId, values: seedValues, ...(await evaluate(seedValues)), parentIds: [], ancestors: new Set(), createdIter: 0, wins: 0 };
  buffer.push(seed);
  observer?.({ kind: "candidate", candidate: seed, phase: "seed" });

  for (let iteration = 1; iteration <= settings.iterations; iteration++) {
    signal.throwIfAborted();
    const parent = sampleParent(buffer, randomRng);
    observer?.({ kind: "parent", iteration, buffer: buffer.map((c) => ({ id: c.id, wins: c.wins, mean: c.mean })), parentId: parent.id });
    apply(parent.values);
    const batch = sampleWithoutReplacement(trainExamples, Math.min(settings.trainBatchSize, trainExamples.length), numpyRng);
    const mutation = await mutate(parent, batch);
    let childScore: number | null = null;
    if (mutation.kind === "skip") {
      // As in Python, a skipped iteration neither merges nor trims.
      context.note(`${label}: no child from parent #${parent.id}: ${mutation.reason}; buffer unchanged`);
    } else {
      const scored = await evaluate(mutation.values);
      const child: GepaCandidate = {
        id: nextId(),
        values: mutation.values,
        ...scored,
        parentIds: [parent.id],
        ancestors: new Set([...parent.ancestors, parent.id]),
        createdIter: iteration,
        wins: 0,
      };
      buffer.push(child);
      observer?.({ kind: "candidate", candidate: child, phase: "child" });
      childScore = finiteOrNull(child.mean);
      if (childScore === null) context.note(`${label}: child #${child.id} failed on part of the Pareto subset (mean −∞)`);
      if (settings.mergeEvery > 0 && iteration % settings.mergeEvery === 0) context.note(await maybeMerge(iteration));
      const evicted = trimBuffer(buffer, settings.maxBufferSize, variant.bufferPolicy);
      if (evicted.length > 0) context.note(`${label}: evicted ${evicted.map((c) => `#${c.id}`).join(", ")} (lowest wins, mean)`);
    }
    const best = bestByMean(buffer);
    context.emit({ step: iteration, score: childScore, best_score: finiteOrNull(best.mean), values: { ...held, ...best.values } });
  }
  // The agent ends with the best mean applied on top of what it holds (not necessarily scored together).
  apply(bestByMean(buffer).values);
  return { values: held };
}
