/**
 * The candidates of a job's attempt, from its events: each candidate once (in the order it was
 * first evaluated), the iteration that introduced it, its parents, every evaluation it had and
 * what it changed in its first parent; then the lineage from the initial values to the best.
 * Read by `trace-bench candidates` and the dashboard's job inspector. Pure.
 */
import type { EventData, StoredEvent } from "../event-schema.js";

export interface CandidateEvaluationEntry {
  /** `training` for a trainer's rollout; else the job's own evaluation of that phase. */
  readonly phase: "initial" | "training" | "final" | "test";
  /** The training iteration under way; null outside training. */
  readonly iteration: number | null;
  readonly split: string;
  readonly score: number | null;
  readonly example_scores: readonly (number | null)[];
  readonly scores?: Readonly<Record<string, number>>;
  /** Feedback texts (refs into the content table) of a training evaluation; the job's evaluations keep theirs inline. */
  readonly feedback_refs: readonly string[];
  readonly feedback: string | null;
  readonly seq: number;
}

export interface ParameterChange {
  readonly parameter: string;
  /** Lines the candidate has that its parent has not, and the reverse (counted as multisets). */
  readonly added: number;
  readonly removed: number;
}

export interface CandidateEntry {
  /** The content ref of its trainable values (the text is in the content table). */
  readonly candidate: string;
  /** 1-based iteration it was first evaluated in; 0 for the initial values, null when only the final evaluation saw it. */
  readonly introduced: number | null;
  readonly parents: readonly string[];
  readonly evaluations: readonly CandidateEvaluationEntry[];
  /** Mean of its training evaluations' scores (those that have one), else of its own phases'. */
  readonly mean_score: number | null;
  readonly best_score: number | null;
  /** The job's evaluations it was the candidate of, and `best` for the values the job reports. */
  readonly marks: readonly ("initial" | "final" | "test" | "best")[];
  /** Its values by parameter (null when the content table does not hold them). */
  readonly values: Readonly<Record<string, unknown>> | null;
  /** What it changed in its first parent's values (empty for a root). */
  readonly changes: readonly ParameterChange[];
}

export interface JobCandidates {
  readonly job_id: string;
  readonly attempt: number;
  readonly candidates: readonly CandidateEntry[];
  /** From the initial candidate to the best, following first parents (empty when the log has no candidates). */
  readonly lineage: readonly string[];
}

/** A candidate id as people read it. */
export const shortCandidate = (ref: string) => ref.slice(0, 8);

interface Building {
  readonly candidate: string;
  introduced: number | null;
  parents: readonly string[];
  readonly evaluations: CandidateEvaluationEntry[];
  readonly marks: Set<"initial" | "final" | "test" | "best">;
}

/** The refs a job's candidate table needs from the content table: values and feedback texts. */
export function candidateContentRefs(events: readonly StoredEvent[]): Set<string> {
  const refs = new Set<string>();
  for (const event of events) {
    if (event.type === "CandidateEvaluated") {
      refs.add(event.data.candidate);
      for (const ref of event.data.parents) refs.add(ref);
    } else if (event.type === "EvaluationCompleted" && event.data.candidate !== undefined) refs.add(event.data.candidate);
  }
  return refs;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function linesOf(value: unknown): string[] {
  return (typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? "").split("\n");
}

/** Lines added and removed between two values, as multisets (cheap, and enough to say how much changed). */
function lineChange(before: unknown, after: unknown): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const line of linesOf(before)) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of linesOf(after)) {
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else added += 1;
  }
  let removed = 0;
  for (const n of counts.values()) removed += n;
  return { added, removed };
}

function parsedValues(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function changesOf(values: Record<string, unknown> | null, parent: Record<string, unknown> | null): ParameterChange[] {
  if (values === null || parent === null) return [];
  const names = [...new Set([...Object.keys(parent), ...Object.keys(values)])];
  return names
    .filter((name) => JSON.stringify(values[name]) !== JSON.stringify(parent[name]))
    .map((parameter) => ({ parameter, ...lineChange(parent[parameter], values[parameter]) }));
}

/**
 * The candidate table of each job's latest attempt (or of `jobId` alone), in the order the jobs'
 * events come. `contents` gives the stored texts for `candidateContentRefs`.
 */
export function candidateTables(events: readonly StoredEvent[], contents: ReadonlyMap<string, string>, jobId: string | null = null): JobCandidates[] {
  // One pass: each job's events, and its latest attempt.
  const byJob = new Map<string, { attempt: number; events: StoredEvent[] }>();
  for (const event of events) {
    if (event.job_id === null || (jobId !== null && event.job_id !== jobId)) continue;
    let job = byJob.get(event.job_id);
    if (job === undefined) byJob.set(event.job_id, (job = { attempt: 0, events: [] }));
    if (event.type === "JobQueued") job.attempt = event.data.attempt;
    job.events.push(event);
  }
  const attemptOf = (e: StoredEvent) => (e.data as { attempt?: number }).attempt;
  return [...byJob].map(([job, { attempt, events: own }]) =>
    tableOf(
      job,
      attempt,
      own.filter((e) => attemptOf(e) === attempt),
      contents,
    ),
  );
}

function tableOf(jobId: string, attempt: number, events: readonly StoredEvent[], contents: ReadonlyMap<string, string>): JobCandidates {
  const byId = new Map<string, Building>();
  const entry = (candidate: string): Building => {
    let found = byId.get(candidate);
    if (found === undefined) byId.set(candidate, (found = { candidate, introduced: null, parents: [], evaluations: [], marks: new Set() }));
    return found;
  };
  const phaseScores: Partial<Record<"initial" | "final", EventData<"EvaluationCompleted">>> = {};
  for (const event of events) {
    if (event.type === "CandidateEvaluated") {
      const d = event.data;
      const c = entry(d.candidate);
      if (c.introduced === null) c.introduced = d.iteration;
      if (c.parents.length === 0 && d.parents.length > 0) c.parents = d.parents;
      c.evaluations.push({ phase: "training", iteration: d.iteration, split: d.split, score: d.score, example_scores: d.example_scores, ...(d.scores ? { scores: d.scores } : {}), feedback_refs: d.feedback, feedback: null, seq: event.seq });
    } else if (event.type === "EvaluationCompleted" && event.data.candidate !== undefined) {
      const d = event.data;
      const c = entry(event.data.candidate);
      if (d.phase === "initial") c.introduced = 0;
      c.marks.add(d.phase);
      if (d.phase !== "test") phaseScores[d.phase] = d;
      c.evaluations.push({ phase: d.phase, iteration: null, split: d.split, score: d.score, example_scores: d.example_scores, feedback_refs: [], feedback: d.feedback, seq: event.seq });
    }
  }
  // The values the job reports, by the runner's rule: the final ones unless they scored below the initial ones.
  const { initial, final } = phaseScores;
  const best = final?.score !== null && final !== undefined && (initial === undefined || initial.score === null || final.score! >= initial.score) ? final.candidate : initial?.candidate;
  if (best !== undefined) entry(best).marks.add("best");
  const values = new Map([...byId.keys()].map((id) => [id, parsedValues(contents.get(id))]));
  const candidates: CandidateEntry[] = [...byId.values()].map((c) => {
    const training = c.evaluations.filter((e) => e.phase === "training" && e.score !== null).map((e) => e.score!);
    const scored = training.length > 0 ? training : c.evaluations.filter((e) => e.score !== null).map((e) => e.score!);
    const parentValues = c.parents.length > 0 ? (values.get(c.parents[0]!) ?? parsedValues(contents.get(c.parents[0]!))) : null;
    const own = values.get(c.candidate) ?? null;
    return {
      candidate: c.candidate,
      introduced: c.introduced,
      parents: c.parents,
      evaluations: c.evaluations,
      mean_score: mean(scored),
      best_score: scored.length === 0 ? null : Math.max(...scored),
      marks: (["initial", "final", "test", "best"] as const).filter((m) => c.marks.has(m)),
      values: own,
      changes: changesOf(own, parentValues),
    };
  });
  return { job_id: jobId, attempt, candidates, lineage: lineageTo(best, initial?.candidate, byId) };
}

/** First parents from `best` back to the initial candidate (or as far as the record goes), initial first. */
function lineageTo(best: string | undefined, initial: string | undefined, byId: ReadonlyMap<string, Building>): string[] {
  if (best === undefined) return [];
  const path = [best];
  const seen = new Set(path);
  let at = byId.get(best);
  while (at !== undefined && at.candidate !== initial && at.parents.length > 0 && !seen.has(at.parents[0]!)) {
    const parent = at.parents[0]!;
    path.push(parent);
    seen.add(parent);
    at = byId.get(parent);
  }
  return path.reverse();
}
