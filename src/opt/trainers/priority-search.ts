/**
 * PrioritySearch (algorithms reference §3.7 SearchTemplate + §3.8 PrioritySearch), the engine
 * shared by StreamingPrioritySearch (§3.9), ParetobasedPS and the SequentialUpdate /
 * SequentialSearch / BeamSearch presets (§3.12).
 *
 * A candidate is a full set of parameter values (plus the optimizer that proposed it and the
 * scores credited to it). Each iteration ≥ 1:
 *   1. every exploration candidate runs on one fresh train batch of `batch_size · num_batches`
 *      examples, split into `num_batches` sub-batches of `batch_size` (E·B·K evaluations); the
 *      rollouts are credited to the candidate exactly once. A rollout whose agent or guide throws
 *      scores the bottom of `score_range` (−∞ by default), so with the default range a candidate
 *      that crashes anywhere can never be the best (parity scenario ps-crash);
 *   2. every (exploration candidate, sub-batch) pair gets one fork of the candidate's optimizer,
 *      which makes all `num_proposals` proposals of that pair one after another, so each prompt
 *      joins the fork's memory before the next (E·K·P LLM calls, in rounds: proposal 1 of every
 *      pair, then proposal 2…; ps-proposals-memory). A non-empty update, completed with the
 *      candidate's other values, becomes a new candidate that keeps the pair's optimizer; an empty
 *      one (unreadable reply, TERMINATE) is dropped and noted;
 *   3. new candidates run on the validation batch: the same train batch, or a fresh batch of the
 *      validate set (new·B·K), and the exploration candidates run on another fresh validate batch
 *      when `validate_exploration_candidates` (E·B·K more; two draws, as in the reference);
 *   4. candidates with equal values are one candidate (the reference keys its results by
 *      candidate, and candidates compare by value): equal exploration candidates and equal new
 *      proposals are all evaluated, and their rollouts credited to the first of them;
 *   5. exploration and new candidates (re-)enter memory with their exploration priority
 *      (mean | UCB | −creation order); the best (highest mean) candidate is exploited and, with
 *      `use_best_candidate_to_explore`, explored again together with the highest-priority
 *      candidates popped from memory until there are `num_candidates` (ParetobasedPS explores
 *      the Pareto frontier of per-task scores instead: priority-search-pareto.ts).
 * Iteration 0 fills memory with `num_candidates` copies of the initial values at the default
 * priority (max score) and makes no LLM call and no evaluation.
 *
 * Loop (SearchTemplate.train): `while n_epochs < num_epochs or n_iters < num_steps`, where
 * n_iters counts iterations *including* iteration 0 and n_epochs is the train loader's epoch
 * count read after each iteration draws its batch. Trace draws the batch that the next
 * iteration's proposals use at the end of each iteration (and evaluates the exploration
 * candidates on it right away); here the batch is drawn at the same point, so epochs and the
 * number of iterations are identical, but the evaluation is deferred to the iteration that uses
 * it — the batch drawn by the last iteration is never evaluated (Trace evaluates it only for its
 * 'Sample/' logs). Trace's test phase (the agent scored on the test set, the train set by default,
 * for its 'Test/' logs) is not run either: the runner scores the job itself. Both are in
 * docs/differences.md. Hence, reading the reference literally:
 *   - `num_steps = S` alone (num_epochs 0) gives S − 1 proposing iterations;
 *   - `num_epochs = 1` (num_steps ≤ 1) stops at the first draw that reaches into the next epoch,
 *     which gives floor(N / (B·K)) proposing iterations for N training examples (none when
 *     N < B·K: the very first batch already wraps around);
 *   - Trace-Bench's defaults (num_epochs 1, num_steps 1, num_candidates 2, num_proposals 2,
 *     num_batches 1) on a one-example task: exactly one proposing iteration, 2·1·2 = 4
 *     optimizer calls and 2 + 4 = 6 evaluations.
 * `emit` is called once per proposing iteration (step = n_iters of that iteration, from 1);
 * iteration 0 is not emitted (it scores nothing). The trainer returns the values of the best
 * candidate of the last iteration (Trace applies the last `update_dict`), or the initial values
 * when no iteration proposed anything.
 *
 * `objective_config` (any mode, as the reference): validation rollouts carry the guide's score
 * dicts, and a candidate that has some is prioritized by the weighted sum of its per-metric means
 * (their plain mean without weights) instead of the score function; in mode `pareto` both
 * memories pop from the Pareto front of their 20 highest priorities (priority-search-pareto-memory.ts).
 * Exploitation stays the best mean score, as in the reference.
 */
import { DataLoader } from "../data-loader.js";
import { mapBounded } from "../bounded.js";
import type { Optimizer, Proposal } from "../optimizer.js";
import type { ParameterValues } from "../../domain/parameter.js";
import type { Rng } from "../rng.js";
import { examplesOf, type Example, type Rollout } from "../rollout.js";
import type { Trainer, TrainerContext, TrainerResult } from "../trainer.js";
import { candidateMean, candidateMeanScoreDict, compareEntries, HeapMemory, scoredCount, SearchMemories, type SearchCandidate } from "./priority-search-memory.js";
import { objectiveScalar, ParetoHeapMemory } from "./priority-search-pareto-memory.js";
import type { ObjectiveConfig } from "../objectives/objective-config.js";
import { objectiveConfigFromKwarg } from "../objectives/objective-config-kwarg.js";
import { applyMinimize } from "../objectives/score-dicts.js";
import { exampleScoreDict, reportedMetricScores } from "../objectives/trainer-objective.js";
import { readPrioritySearchOptions, type PrioritySearchOptions } from "./priority-search-options.js";
import { distinctTasks, paretoFrontier } from "./priority-search-pareto.js";

export { readPrioritySearchOptions, TrainerKwargError, type PrioritySearchOptions, type ScoreFunction, type StreamingOptions } from "./priority-search-options.js";
export { candidateMean, HeapMemory, SearchMemories, type SearchCandidate, type MemoryEntry } from "./priority-search-memory.js";

/** Kwargs PrioritySearch reads beyond the common list (num_* , batch_size, num_threads…). */
export const PRIORITY_SEARCH_KWARGS: readonly string[] = [
  "num_epochs",
  "num_steps",
  "num_batches",
  "num_candidates",
  "num_proposals",
  "batch_size",
  "train_batch_size",
  "score_range",
  "validate_exploration_candidates",
  "use_best_candidate_to_explore",
  "long_term_memory_size",
  "short_term_memory_size",
  "memory_update_frequency",
  "score_function",
  "ucb_exploration_constant",
  "decouple_optimizers",
  "objective_config",
];

/** A candidate as the observer sees it. */
export interface CandidateView {
  readonly id: number;
  readonly parentId: number | null;
  readonly values: ParameterValues;
  readonly mean: number | null;
  /** Rollouts credited so far. */
  readonly rollouts: number;
}

/** What one iteration did (for tests and diagnostics; Trace's 'Update/' logs). */
export interface IterationSnapshot {
  readonly iteration: number;
  /** The candidates explored this iteration, after their exploration (and validation) rollouts were credited. */
  readonly explored: readonly CandidateView[];
  /** Proposing pairs (candidate, sub-batch) the optimizer was run on. */
  readonly pairs: number;
  readonly proposals: number;
  /** New candidates (non-empty proposals). */
  readonly created: readonly CandidateView[];
  readonly best: CandidateView;
  readonly bestPriority: number;
  /** The candidates the next iteration explores, in order. */
  readonly exploration: readonly CandidateView[];
  readonly shortTermMemorySize: number;
  readonly longTermMemorySize: number;
  readonly usingLongTermMemory: boolean;
}

export type SearchObserver = (snapshot: IterationSnapshot) => void;

/** What a variant adds to the loop (POLCA): a filter of new candidates, a context for the optimizer, full rollouts kept. */
export interface SearchHooks {
  /**
   * Which proposals go on to validation and memory (Trace's `filter_candidates`; identity here).
   * `pool`: the candidates in the current memory, then this iteration's exploration candidates.
   */
  readonly filterCandidates?: (proposed: readonly SearchCandidate[], pool: readonly SearchCandidate[]) => Promise<SearchCandidate[]>;
  /** Text appended to the feedback of every proposal problem of this iteration (null: none); same pool. */
  readonly proposalContext?: (pool: readonly SearchCandidate[]) => Promise<string | null>;
  /** Keep every credited rollout on its candidate (`rollouts`). */
  readonly keepRollouts?: boolean;
}

function view(candidate: SearchCandidate): CandidateView {
  return { id: candidate.id, parentId: candidate.parentId, values: candidate.values, mean: candidateMean(candidate), rollouts: candidate.scores.length };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface Pair {
  readonly candidate: SearchCandidate;
  /** Which sub-batch of the candidate's exploration batch. */
  readonly subBatch: number;
  readonly rollouts: readonly Rollout[];
}

interface Selection {
  readonly best: SearchCandidate;
  readonly bestPriority: number;
  readonly exploration: SearchCandidate[];
}

class PrioritySearchRun {
  private nextId = 0;
  private readonly memories: SearchMemories;
  private readonly minScore: number;
  private readonly selectRng: Rng;
  private readonly trainLoader: DataLoader;
  private readonly validateLoader: DataLoader | null;
  private numProposals: number;
  /** The distinct training inputs (ParetobasedPS's tasks). */
  private readonly tasks: readonly string[];
  /** `objective_config`: priorities from score dicts (any mode), Pareto pops (mode pareto). */
  private readonly objective: ObjectiveConfig | null;

  constructor(
    private readonly context: TrainerContext,
    private readonly options: PrioritySearchOptions,
    private readonly observer?: SearchObserver,
    private readonly hooks: SearchHooks = {},
  ) {
    const { rng } = context;
    // One stream per concern, forked in a fixed order.
    const trainRng = rng.fork("priority-search/train-loader");
    const validateRng = rng.fork("priority-search/validate-loader");
    this.selectRng = rng.fork("priority-search/select");
    const loaderBatch = options.batchSize * options.numBatches;
    const train = examplesOf(context.train);
    if (train.length === 0) throw new Error(`${options.label}: the training dataset is empty`);
    this.trainLoader = new DataLoader(train, loaderBatch, trainRng);
    this.tasks = distinctTasks(train.map((e) => e.input));
    const validate = context.validate ? examplesOf(context.validate) : [];
    this.validateLoader = validate.length > 0 ? new DataLoader(validate, loaderBatch, validateRng) : null;
    this.objective = objectiveConfigFromKwarg(context.kwargs["objective_config"]);
    const objective = this.objective;
    const memory = objective?.mode === "pareto" ? (size: number) => new ParetoHeapMemory(size, objective) : undefined;
    this.memories = new SearchMemories(options.longTermMemorySize, options.shortTermMemorySize, options.memoryUpdateFrequency, memory);
    // A crashed rollout scores the bottom of the score range (the reference's min_score; −∞ by default).
    this.minScore = options.scoreRange[0];
    this.numProposals = options.numProposals;
  }

  private newCandidate(values: ParameterValues, optimizer: Optimizer, parentId: number | null): SearchCandidate {
    return { id: this.nextId++, values, optimizer, parentId, scores: [], inputs: [], scoreDicts: [], ...(this.hooks.keepRollouts === true ? { rollouts: [] } : {}) };
  }

  /** Trace's `compute_exploration_priority`; a candidate without rollouts gets the default priority. */
  private explorationPriority(candidate: SearchCandidate, nIters: number): number {
    if (candidate.scores.length === 0) return this.options.defaultPriority;
    // With an objective the reference ranks by the mean score dict, whatever the score function, once the candidate has one.
    const scoreDict = this.objective === null ? null : candidateMeanScoreDict(candidate);
    if (scoreDict !== null) return objectiveScalar(applyMinimize(scoreDict, this.objective!.minimize), this.objective!);
    switch (this.options.scoreFunction) {
      case "mean":
        return candidateMean(candidate) ?? -Infinity;
      case "time":
        // The reference's −created_time: the oldest candidate is explored first (parity scenario
        // ps-options score_function_time; its comment says "latest", its code and runs do this).
        return -candidate.id;
      case "ucb": {
        const [lo, hi] = this.options.scoreRange;
        const n = scoredCount(candidate);
        const mean = candidateMean(candidate);
        if (n === 0 || mean === null) return hi;
        const c = this.options.ucbExplorationConstant;
        // With an infinite range the bonus is infinite: every priority is the range maximum, +∞
        // (ps-options score_function_ucb_default_range), and ties pop the newest candidate.
        const bonus = c === 0 ? 0 : c * Math.sqrt(Math.log(nIters + 2) / n) * (hi - lo);
        return Math.min(hi, Math.max(lo, mean + bonus));
      }
    }
  }

  /** Rollouts of several (values, examples) jobs, flattened so that at most `num_threads` run at once. */
  private async evaluate(jobs: readonly { values: ParameterValues; examples: readonly Example[] }[]): Promise<Rollout[][]> {
    const flat = jobs.flatMap((job, j) => job.examples.map((example) => ({ j, values: job.values, example })));
    const request = { minScore: this.minScore };
    const results = await mapBounded(
      flat,
      async (item) => {
        const [rollout] = await this.context.rollout(item.values, [item.example], request);
        if (rollout === undefined) throw new Error(`${this.options.label}: a rollout returned no result`);
        return rollout;
      },
      this.options.numThreads,
      this.context.signal,
    );
    const grouped: Rollout[][] = jobs.map(() => []);
    results.forEach((rollout, i) => grouped[flat[i]!.j]!.push(rollout));
    return grouped;
  }

  /** `validation`: the reference attaches score dicts to validation rollouts only. */
  private credit(candidate: SearchCandidate, rollouts: readonly Rollout[], validation: boolean): void {
    for (const r of rollouts) {
      candidate.scores.push(r.score);
      candidate.inputs.push(r.input);
      candidate.rollouts?.push(r);
      if (this.objective !== null) candidate.scoreDicts?.push(validation && r.error === undefined ? exampleScoreDict(r, this.minScore) : null);
    }
  }

  /** Exploit (best mean, not removed) then explore (best first, then pops by priority). */
  private select(memory: HeapMemory): Selection {
    const bestEntry = memory.best(candidateMean);
    if (bestEntry === undefined) throw new Error(`${this.options.label}: the memory is empty; nothing to exploit`);
    if (this.options.exploration === "pareto") {
      const exploration = paretoFrontier(memory.snapshot(), this.tasks, this.options.numCandidates);
      for (const c of exploration) memory.remove(c);
      return { best: bestEntry.candidate, bestPriority: bestEntry.priority, exploration };
    }
    const exploration: SearchCandidate[] = [];
    if (this.options.streaming) {
      // Streaming: new candidates have no rollouts and are scored only by exploring them, so they
      // take the exploration slots first (the reference instead counts their missing mean as 0,
      // adopts every newest proposal unscored and never scores it: parity scenario
      // streaming-priority-search, a deliberate difference).
      for (const entry of memory.snapshot()) {
        if (exploration.length >= this.options.numCandidates) break;
        if (entry.candidate.scores.length === 0 && entry.candidate !== bestEntry.candidate) {
          memory.remove(entry.candidate);
          exploration.push(entry.candidate);
        }
      }
    }
    if (this.options.useBestCandidateToExplore && exploration.length < this.options.numCandidates) {
      // Taken out of memory so it is not also popped or re-pushed twice (Trace may duplicate it).
      memory.remove(bestEntry.candidate);
      exploration.push(bestEntry.candidate);
    }
    while (exploration.length < this.options.numCandidates && memory.length > 0) exploration.push(memory.pop()!.candidate);
    return { best: bestEntry.candidate, bestPriority: bestEntry.priority, exploration };
  }

  /**
   * num_proposals proposals per pair from one optimizer per pair (a fork of the candidate's, or
   * the candidate's own without `decouple_optimizers`), so each proposal's prompt carries the
   * pair's earlier proposals in its memory. Calls go in rounds (proposal p of every pair, in pair
   * order); within a round the pairs run in parallel, bounded by `num_threads`.
   */
  private async propose(pairs: readonly Pair[], feedbackContext: string | null = null): Promise<SearchCandidate[]> {
    const { context, options } = this;
    const problems = pairs.map((pair) => (feedbackContext === null ? context.problem(pair.candidate.values, pair.rollouts) : context.problem(pair.candidate.values, pair.rollouts, feedbackContext)));
    const optimizers = pairs.map((pair) => (options.decoupleOptimizers ? pair.candidate.optimizer.fork() : pair.candidate.optimizer));
    const call = (i: number) => optimizers[i]!.propose(problems[i]!, context.signal);
    const indices = pairs.map((_, i) => i);
    const created: SearchCandidate[] = [];
    for (let p = 0; p < this.numProposals; p++) {
      context.signal.throwIfAborted();
      // Undecoupled pairs may share an optimizer whose memory changes with each call: one at a time.
      const proposals: Proposal[] = options.decoupleOptimizers ? await mapBounded(indices, call, options.numThreads, context.signal) : await sequential(indices, call, context.signal);
      proposals.forEach((proposal, i) => {
        const pair = pairs[i]!;
        const where = `candidate #${pair.candidate.id}, sub-batch ${pair.subBatch + 1}, proposal ${p + 1}`;
        const changed = Object.keys(proposal.update).length > 0;
        if (!changed) {
          const why = proposal.notes.length > 0 ? proposal.notes.join("; ") : proposal.terminated ? "the optimizer answered TERMINATE" : "the reply proposed no change";
          context.note(`${options.label}: proposal dropped (${where}): ${why}`);
          return;
        }
        if (proposal.notes.length > 0) context.note(`${options.label}: ${where}: ${proposal.notes.join("; ")}`);
        created.push(this.newCandidate({ ...pair.candidate.values, ...proposal.update }, optimizers[i]!, pair.candidate.id));
      });
    }
    return created;
  }

  /**
   * Credits each candidate's rollouts to the one candidate with its values: the first of `into`
   * with those values, else the oldest (lowest id) of `candidates`. Returns the candidates that
   * remain, in order. `note`: say so when a candidate is merged into another (not for the
   * initial copies, which are always equal).
   */
  private creditCollapsed(candidates: readonly SearchCandidate[], rollouts: readonly (readonly Rollout[])[], into: readonly SearchCandidate[] = [], note = true, validation = true): SearchCandidate[] {
    const byValues = new Map<string, SearchCandidate>();
    for (const c of into) if (!byValues.has(valuesKey(c.values))) byValues.set(valuesKey(c.values), c);
    const fromInto = new Set(byValues.keys());
    for (const c of candidates) {
      const key = valuesKey(c.values);
      const held = byValues.get(key);
      if (held === undefined || (!fromInto.has(key) && c.id < held.id)) byValues.set(key, c);
    }
    const kept: SearchCandidate[] = [];
    candidates.forEach((c, i) => {
      const same = byValues.get(valuesKey(c.values))!;
      this.credit(same, rollouts[i]!, validation);
      if (same === c) kept.push(c);
      else if (note) this.context.note(`${this.options.label}: candidate #${c.id} has the values of candidate #${same.id}: counted as one candidate`);
    });
    return kept;
  }

  /**
   * StreamingPrioritySearch's choice of pairs to improve (§3.9): K pairs, sampled without
   * replacement with softmax(priority / temperature) weights.
   */
  private choosePairs(pairs: readonly Pair[], available: number, nIters: number): Pair[] {
    const streaming = this.options.streaming!;
    const n = this.options.numCandidates;
    const p = this.numProposals;
    let k = Math.max(Math.floor((n * streaming.ratio) / p), 1);
    if (k * p + available < n) k += Math.floor((n - (k * p + available)) / p);
    k = Math.max(1, Math.min(k, Math.floor(n / p)));
    if (pairs.length <= k) return [...pairs];
    const priorities = pairs.map((pair) => this.explorationPriority(pair.candidate, nIters));
    const chosen = new Set<number>();
    if (!(streaming.temperature > 0)) {
      // Greedy: the K highest priorities (ties: most recent candidate, then earlier sub-batch).
      const order = pairs.map((_, i) => i).sort((a, b) => compareEntries({ priority: priorities[a]!, candidate: pairs[a]!.candidate }, { priority: priorities[b]!, candidate: pairs[b]!.candidate }) || a - b);
      order.slice(0, k).forEach((i) => chosen.add(i));
    } else {
      const weights = softmaxWeights(priorities, streaming.temperature);
      while (chosen.size < k) {
        const remaining = pairs.map((_, i) => i).filter((i) => !chosen.has(i));
        let total = remaining.reduce((sum, i) => sum + weights[i]!, 0);
        const w = total > 0 ? weights : pairs.map(() => 1);
        if (!(total > 0)) total = remaining.length;
        let x = this.selectRng.next() * total;
        let pick = remaining[remaining.length - 1]!;
        for (const i of remaining) {
          x -= w[i]!;
          if (x < 0) {
            pick = i;
            break;
          }
        }
        chosen.add(pick);
      }
    }
    // In their original order (exploration order, then sub-batch), so prompts come in a stable order.
    return pairs.filter((_, i) => chosen.has(i));
  }

  async run(): Promise<TrainerResult> {
    const { context, options } = this;
    const { signal } = context;
    let nIters = 0;
    let nEpochs = 0;
    const running = () => nEpochs < options.numEpochs || nIters < options.numSteps;
    if (!running()) return { values: context.initialValues };

    if (options.streaming && this.numProposals > options.numCandidates * options.streaming.ratio) {
      const reduced = Math.max(1, Math.floor(options.numCandidates * options.streaming.ratio));
      context.note(`${options.label}: num_proposals ${this.numProposals} exceeds num_candidates · exploration_ratio; using ${reduced}`);
      this.numProposals = reduced;
    }

    // Iteration 0: num_candidates copies of the initial agent sharing one optimizer; no LLM call.
    signal.throwIfAborted();
    const initialOptimizer = context.createOptimizer();
    const memory0 = this.memories.current(0);
    const copies = Math.min(memory0.size, options.numCandidates);
    while (memory0.length < copies) memory0.push(options.defaultPriority, this.newCandidate(context.initialValues, initialOptimizer, null));
    let selection = this.select(memory0);
    let batch = this.trainLoader.sample();
    nEpochs = this.trainLoader.nEpochs;
    nIters = 1;

    let bestSoFar: number | null = null;
    while (running()) {
      signal.throwIfAborted();
      const exploration = selection.exploration;

      // 1. The exploration candidates on the train batch, in sub-batches; credited once.
      const explored = await this.evaluate(exploration.map((c) => ({ values: c.values, examples: batch })));
      // Pairs come from every exploration candidate; equal candidates then count as one.
      let pairs: Pair[] = exploration.flatMap((candidate, i) => chunks(explored[i]!, options.batchSize).map((rollouts, subBatch) => ({ candidate, subBatch, rollouts })));
      const explorationKept = this.creditCollapsed(exploration, explored, [], false, false);

      // The memory of this iteration (merging short-term into long-term when due).
      const memory = this.memories.current(nIters);
      if (options.streaming) pairs = this.choosePairs(pairs, exploration.length + memory.length, nIters);

      // 2. Proposals (with the variant's context), then the variant's filter.
      signal.throwIfAborted();
      const pool = () => [...memory.snapshot().map((e) => e.candidate), ...exploration];
      const feedbackContext = this.hooks.proposalContext === undefined ? null : await this.hooks.proposalContext(pool());
      signal.throwIfAborted();
      let proposed = await this.propose(pairs, feedbackContext);
      if (this.hooks.filterCandidates !== undefined) {
        signal.throwIfAborted();
        proposed = await this.hooks.filterCandidates(proposed, pool());
      }

      // 3. Validation.
      signal.throwIfAborted();
      let created: SearchCandidate[];
      if (options.validateProposals && !options.streaming) {
        // New candidates on the train batch or a validate batch; with a validate set the
        // exploration candidates run on a second validate batch (the reference's two draws).
        const validationBatch = this.validateLoader ? this.validateLoader.sample() : batch;
        const rollouts = await this.evaluate(proposed.map((c) => ({ values: c.values, examples: validationBatch })));
        created = this.creditCollapsed(proposed, rollouts, explorationKept);
        if (this.validateLoader !== null && options.validateExplorationCandidates) {
          // Every exploration candidate runs (equal copies too, as in the reference), credited once per value.
          const explorationBatch = this.validateLoader.sample();
          const again = await this.evaluate(exploration.map((c) => ({ values: c.values, examples: explorationBatch })));
          this.creditCollapsed(exploration, again, [], false);
        }
      } else {
        created = this.creditCollapsed(proposed, proposed.map(() => []), explorationKept);
      }

      // 4. Back into memory, then exploit and explore.
      for (const c of [...explorationKept, ...created]) memory.push(this.explorationPriority(c, nIters), c);
      selection = this.select(memory);

      const bestMean = candidateMean(selection.best);
      if (bestMean !== null && (bestSoFar === null || bestMean > bestSoFar)) bestSoFar = bestMean;
      this.observer?.({
        iteration: nIters,
        explored: explorationKept.map(view),
        pairs: pairs.length,
        proposals: pairs.length * this.numProposals,
        created: created.map(view),
        best: view(selection.best),
        bestPriority: selection.bestPriority,
        exploration: selection.exploration.map(view),
        shortTermMemorySize: this.memories.shortTerm.length,
        longTermMemorySize: this.memories.longTerm.length,
        usingLongTermMemory: memory === this.memories.longTerm,
      });
      // JSON has no ±∞: a best whose mean is −∞ (it crashed) is reported as no score.
      // Under an objective, the best candidate's per-metric means over its validation rollouts.
      const scores = reportedMetricScores(candidateMeanScoreDict(selection.best) ?? undefined);
      context.emit({ step: nIters, score: finiteOrNull(bestMean), best_score: finiteOrNull(bestSoFar), values: selection.best.values, ...(scores !== undefined ? { scores } : {}) });

      // The batch the next iteration explores (drawn here, like Trace, so epochs count the same).
      batch = this.trainLoader.sample();
      nEpochs = this.trainLoader.nEpochs;
      nIters += 1;
    }
    return { values: selection.best.values };
  }
}

function finiteOrNull(x: number | null): number | null {
  return x !== null && Number.isFinite(x) ? x : null;
}

/** Values as a canonical string: equal values (whatever the key order) give equal keys. */
function valuesKey(values: ParameterValues): string {
  const canon = (v: unknown): unknown =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  return JSON.stringify(canon(values));
}

function softmaxWeights(priorities: readonly number[], temperature: number): number[] {
  const clean = priorities.map((p) => (Number.isNaN(p) ? -Infinity : p));
  const max = Math.max(...clean);
  if (max === Infinity) return clean.map((p) => (p === Infinity ? 1 : 0));
  if (max === -Infinity) return clean.map(() => 1);
  return clean.map((p) => Math.exp((p - max) / temperature));
}

async function sequential<T, R>(items: readonly T[], work: (item: T) => Promise<R>, signal: AbortSignal): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) {
    signal.throwIfAborted();
    out.push(await work(item));
  }
  return out;
}

/** Runs the PrioritySearch engine with explicit options (variants build their own). */
export function runPrioritySearch(context: TrainerContext, options: PrioritySearchOptions, observer?: SearchObserver, hooks?: SearchHooks): Promise<TrainerResult> {
  return new PrioritySearchRun(context, options, observer, hooks).run();
}

export const prioritySearchTrainer: Trainer = {
  id: "PrioritySearch",
  kwargs: PRIORITY_SEARCH_KWARGS,
  train(context) {
    return runPrioritySearch(context, readPrioritySearchOptions(context.kwargs, "PrioritySearch"));
  },
};
