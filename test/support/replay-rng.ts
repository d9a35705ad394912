/**
 * An Rng that replays permutations recorded from numpy (`numpy.random.choice(n, size, replace=False)`,
 * i.e. the first `size` items of a permutation), for the parity tests: our generator cannot draw
 * numpy's numbers, so a test injects the recorded draws instead. Each draw becomes the sequence of
 * `int()` answers that makes our Fisher–Yates shuffle (`shuffled` in src/opt/data-loader.ts)
 * produce exactly that permutation. Any other use of the Rng, or a draw of another size, fails.
 */
import type { Rng } from "../../src/opt/rng.js";

export interface RecordedDraw {
  readonly n: number;
  readonly result: readonly number[];
}

/** The `int(bound)` answers that make `shuffled([0..n-1])` start with `result`. */
function answersFor(draw: RecordedDraw): { bound: number; answer: number }[] {
  const rest = Array.from({ length: draw.n }, (_, i) => i).filter((i) => !draw.result.includes(i));
  const target = [...draw.result, ...rest];
  const out = Array.from({ length: draw.n }, (_, i) => i);
  const answers: { bound: number; answer: number }[] = [];
  for (let i = draw.n - 1; i > 0; i--) {
    const j = out.indexOf(target[i]!);
    answers.push({ bound: i + 1, answer: j });
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return answers;
}

export interface ReplayRng extends Rng {
  /** How many recorded draws have not been consumed yet (whole draws, plus 1 while one is half used). */
  remainingAnswers(): number;
}

export function replayRng(draws: readonly RecordedDraw[]): ReplayRng {
  const queue = draws.flatMap(answersFor);
  let used = 0;
  return {
    next: () => {
      throw new Error("replayRng: next() is not recorded");
    },
    int(n) {
      const step = queue[used];
      if (step === undefined) throw new Error(`replayRng: no recorded draw left (int(${n}) asked after ${used} answers)`);
      if (step.bound !== n) throw new Error(`replayRng: int(${n}) asked where the recording expects int(${step.bound}) (answer ${used + 1})`);
      used += 1;
      return step.answer;
    },
    fork: () => {
      throw new Error("replayRng: fork() is not recorded");
    },
    remainingAnswers: () => queue.length - used,
  };
}

/**
 * An Rng whose forks are replayed streams, by fork label (e.g. PrioritySearch's
 * "priority-search/train-loader"); drawing from the root or from any other fork fails.
 */
export function replayForks(byLabel: Readonly<Record<string, Rng>>): Rng {
  const refuse = (what: string) => () => {
    throw new Error(`replayForks: ${what} is not recorded`);
  };
  const unrecorded = (label: string): Rng => ({ next: refuse(`fork ${label}`), int: refuse(`fork ${label}`), fork: refuse(`fork ${label}`) });
  return {
    next: refuse("next()"),
    int: refuse("int()"),
    fork: (label) => byLabel[label] ?? unrecorded(label),
  };
}

/** A recorded Python `random.Random` draw (parity scenario gepa-code's `python_random_draws`). */
export interface PythonRandomDraw {
  readonly source: string;
  readonly population_size?: number;
  readonly weights?: readonly number[];
  readonly result: number | readonly number[];
}

/**
 * An Rng that replays Python `random.Random` choices as GEPA draws them (gepa-core.ts):
 * `choices(weights)` → one `next()` landing inside the chosen index's share of the weights;
 * `sample(range(n), 2)` → `int(n)`, `int(n − 1)` as `samplePair` reads them; `random()` → one
 * `next()` with the recorded value. Any other use, or a draw of another shape, fails.
 */
export function replayPythonRandom(draws: readonly PythonRandomDraw[]): ReplayRng {
  type Answer = { kind: "next"; value: number } | { kind: "int"; bound: number; value: number };
  const queue: Answer[] = draws.flatMap((d): Answer[] => {
    const kind = d.source.split(".").at(-1);
    if (kind === "random") return [{ kind: "next", value: d.result as number }];
    const result = d.result as readonly number[];
    if (kind === "choices") {
      const weights = d.weights!;
      const before = weights.slice(0, result[0]).reduce((s, w) => s + w, 0);
      const total = weights.reduce((s, w) => s + w, 0);
      return [{ kind: "next", value: (before + weights[result[0]!]! / 2) / total }];
    }
    if (kind === "sample") {
      const [i, j] = result as [number, number];
      const n = d.population_size!;
      return [
        { kind: "int", bound: n, value: i },
        { kind: "int", bound: n - 1, value: j > i ? j - 1 : j },
      ];
    }
    throw new Error(`replayPythonRandom: unknown draw ${d.source}`);
  });
  let used = 0;
  const take = (what: string, bound?: number): number => {
    const answer = queue[used];
    if (answer === undefined) throw new Error(`replayPythonRandom: no recorded draw left for ${what}`);
    if (answer.kind !== (bound === undefined ? "next" : "int") || (answer.kind === "int" && answer.bound !== bound)) {
      throw new Error(`replayPythonRandom: ${what} asked where the recording expects ${answer.kind === "int" ? `int(${answer.bound})` : "next()"} (answer ${used + 1})`);
    }
    used += 1;
    return answer.value;
  };
  return {
    next: () => take("next()"),
    int: (n) => take(`int(${n})`, n),
    fork: () => {
      throw new Error("replayPythonRandom: fork() is not recorded");
    },
    remainingAnswers: () => queue.length - used,
  };
}
