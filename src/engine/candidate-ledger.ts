/**
 * Every candidate a job evaluates, on record: its id (the content ref of its trainable values as
 * canonical JSON, the values themselves stored once in the content table), the candidates it was
 * proposed from, and what it scored. The engine sees what trainers do without their help: a
 * problem shows the optimizer a candidate's values, a proposal changes some of them, and the
 * candidate that results has the shown one as its parent. The ledger also says whether the
 * optimizer ever proposed a change (a job whose optimizer never did made no search).
 */
import { canonicalJson } from "../codec/python-json.js";
import type { JsonValue } from "../domain/json-value.js";
import type { ParameterSpec, ParameterValues } from "../domain/parameter.js";
import type { Dataset } from "../domain/dataset.js";
import { contentRef } from "../events/content-ref.js";
import type { ProblemInstance } from "../opt/problem.js";
import type { Proposal } from "../opt/optimizer.js";
import type { Example, Rollout } from "../opt/rollout.js";
import type { JobFact } from "./job-decider.js";

export interface CandidateRecord {
  readonly fact: JobFact;
  /** Texts the fact refers to (its values and feedback), to commit with it. */
  readonly contents: ReadonlyMap<string, string>;
}

export class CandidateLedger {
  private readonly trainable: readonly string[];
  /** Candidate → the candidates it was proposed from (the first proposal that made it). */
  private readonly parentsOf = new Map<string, readonly string[]>();
  /** The values each problem was built from: a proposal on it is a child of that candidate. */
  private readonly problemValues = new WeakMap<ProblemInstance, ParameterValues>();
  /** The latest problem's values: the base of a problem that a trainer rebuilt from another. */
  private latestProblemValues: ParameterValues | null = null;
  /** Refs already committed in this attempt (the content table keeps each text once anyway). */
  private readonly stored = new Set<string>();
  private readonly splits = new Map<unknown, string>();
  /** Replies the optimizer gave, and how many of them changed a value. */
  private proposals = 0;
  private changes = 0;

  constructor(parameters: readonly ParameterSpec[], datasets: { readonly train: Dataset; readonly validate?: Dataset | undefined }) {
    this.trainable = parameters.filter((p) => p.trainable).map((p) => p.name);
    // Where a batch comes from, by its first example's input (train wins a tie, as trainers draw from it).
    for (const input of datasets.validate?.inputs ?? []) this.splits.set(input, "validate");
    for (const input of datasets.train.inputs) this.splits.set(input, "train");
  }

  /** The trainable values of `values`, as the text stored for its candidate. */
  private textOf(values: ParameterValues): string {
    const own: Record<string, JsonValue> = {};
    for (const name of this.trainable) if (Object.hasOwn(values, name)) own[name] = values[name]!;
    return canonicalJson(own, false);
  }

  /** The candidate id of `values`. */
  idOf(values: ParameterValues): string {
    return contentRef(this.textOf(values));
  }

  /** `values` as a candidate: its id and, the first time, its text to store. */
  private stamp(values: ParameterValues, contents: Map<string, string>): string {
    const text = this.textOf(values);
    const id = contentRef(text);
    this.store(id, text, contents);
    return id;
  }

  private store(ref: string, text: string, contents: Map<string, string>): void {
    if (this.stored.has(ref)) return;
    this.stored.add(ref);
    contents.set(ref, text);
  }

  /** The texts an initial, final or test evaluation's `candidate` refers to. */
  candidateOf(values: ParameterValues): { readonly id: string; readonly contents: ReadonlyMap<string, string> } {
    const contents = new Map<string, string>();
    return { id: this.stamp(values, contents), contents };
  }

  /** A problem was built from `values`. */
  problemBuilt(problem: ProblemInstance, values: ParameterValues): void {
    this.problemValues.set(problem, values);
    this.latestProblemValues = values;
  }

  /** The optimizer answered `problem` with `proposal`: the candidate it makes is a child of the one shown. */
  proposed(problem: ProblemInstance, proposal: Proposal): void {
    this.proposals += 1;
    const changed = Object.keys(proposal.update).filter((name) => this.trainable.includes(name));
    if (changed.length === 0) return;
    const shown = this.problemValues.get(problem) ?? this.shownValues(problem);
    const child = { ...shown, ...proposal.update };
    const parent = this.idOf(shown);
    const id = this.idOf(child);
    if (id === parent) return;
    this.changes += 1;
    if (!this.parentsOf.has(id)) this.parentsOf.set(id, [parent]);
  }

  /** The values a problem that the ledger did not see built shows: the latest problem's, with its variables. */
  private shownValues(problem: ProblemInstance): ParameterValues {
    const values: Record<string, JsonValue> = { ...(this.latestProblemValues ?? {}) };
    for (const variable of problem.variables) values[variable.parameter ?? variable.name] = variable.value;
    return values;
  }

  /** The trainer made `values` from `parents` itself (a merge). */
  derived(values: ParameterValues, parents: readonly ParameterValues[]): void {
    const id = this.idOf(values);
    const ids = [...new Set(parents.map((p) => this.idOf(p)))].filter((p) => p !== id);
    if (ids.length > 0 && !this.parentsOf.has(id)) this.parentsOf.set(id, ids);
  }

  /** The optimizer was asked and never proposed a change. */
  noSearch(): boolean {
    return this.proposals > 0 && this.changes === 0;
  }

  /** The event for one rollout of `values` on `examples` during training iteration `iteration`. */
  evaluated(attempt: number, iteration: number, values: ParameterValues, examples: readonly Example[], rollouts: readonly Rollout[]): CandidateRecord {
    const contents = new Map<string, string>();
    const candidate = this.stamp(values, contents);
    const feedback = rollouts.map((r) => {
      const ref = contentRef(r.feedback);
      this.store(ref, r.feedback, contents);
      return ref;
    });
    const exampleScores = rollouts.map((r) => r.score);
    const score = exampleScores.length > 0 && exampleScores.every((s) => s !== null) ? (exampleScores as number[]).reduce((a, b) => a + b, 0) / exampleScores.length : null;
    const scores = metricMeans(rollouts);
    const split = examples.length === 0 ? "other" : (this.splits.get(examples[0]!.input) ?? "other");
    const data = {
      attempt,
      candidate,
      parents: this.parentsOf.get(candidate) ?? [],
      iteration,
      split,
      score,
      example_scores: exampleScores,
      ...(scores !== null ? { scores } : {}),
      feedback,
    };
    return { fact: { type: "CandidateEvaluated", data }, contents };
  }
}

/** Per-metric means over the rollouts that report each metric; null when none does. */
function metricMeans(rollouts: readonly Rollout[]): Record<string, number> | null {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const rollout of rollouts) {
    for (const [metric, value] of Object.entries(rollout.scores ?? {})) {
      const entry = sums.get(metric) ?? { sum: 0, n: 0 };
      entry.sum += value;
      entry.n += 1;
      sums.set(metric, entry);
    }
  }
  if (sums.size === 0) return null;
  return Object.fromEntries([...sums].map(([metric, { sum, n }]) => [metric, sum / n]));
}
