/**
 * The Six-Hump Camel environment of Trace-Bench's multi-objective convex task: pick x = [x1, x2]
 * in [−2, 2]² to minimize f(x) + coef·|x|², where f is the Six-Hump Camel function. Each valid
 * step uses an attempt and moves the current point; an unreadable action is invalid (reward −1,
 * no losses); an out-of-range x, or an action that says "stop"/"stay"/"reach", scores the current
 * point without using an attempt. Texts and numbers are written as the Python original writes them.
 */
import { pythonFloatRepr } from "../../../src/codec/python-json.js";
import { NumpyPcg64 } from "./numpy-pcg64.js";

export type Point = readonly [number, number];

export interface CamelStep {
  readonly observation: string | null;
  readonly reward: number;
  readonly feedback: string;
  /** Null for an invalid action. */
  readonly baseLoss: number | null;
  readonly regLoss: number | null;
}

const LOW = -2.0;
const HIGH = 2.0;
const STOP_WORDS = ["reach", "stay", "stop"];
const POINT_PATTERN = /\[(-?\d+\.?\d*(?:e[-+]?\d+)?),\s*(-?\d+\.?\d*(?:e[-+]?\d+)?)\]/;

/** f(x1, x2) with Python's operation order (powers through `**`, as Python evaluates them). */
export function sixHumpCamel([u, v]: Point): number {
  return (4 - 2.1 * u ** 2 + u ** 4 / 3) * u ** 2 + u * v + (-4 + 4 * v ** 2) * v ** 2;
}

/** numpy's `round(x, 4)`: scale, round half to even, scale back. */
function round4(x: number): number {
  const scaled = x * 10000;
  let r = Math.round(scaled);
  if (Math.abs(scaled % 1) === 0.5) r = 2 * Math.round(scaled / 2);
  return r / 10000;
}

const py = pythonFloatRepr;

export class SixHumpCamelEnv {
  private current: Point;
  private attempts: number;

  constructor(
    readonly horizon: number,
    readonly normCoef: number,
    seed: number,
    state?: { current: Point; attempts: number },
  ) {
    if (state) {
      this.current = state.current;
      this.attempts = state.attempts;
      return;
    }
    // reset(): a random start drawn as numpy draws it for this seed, rounded to 4 decimals.
    const rng = new NumpyPcg64(seed);
    this.current = [round4(rng.uniform(LOW, HIGH)), round4(rng.uniform(LOW, HIGH))];
    this.attempts = horizon;
  }

  get leftAttempts(): number {
    return this.attempts;
  }

  /** A copy that steps independently (the guide's score dicts are computed on one). */
  copy(seed = 0): SixHumpCamelEnv {
    return new SixHumpCamelEnv(this.horizon, this.normCoef, seed, { current: this.current, attempts: this.attempts });
  }

  private regularizer([u, v]: Point): number {
    return this.normCoef === 0 ? 0 : this.normCoef * (u ** 2 + v ** 2);
  }

  private report(point: Point, closing: string): string {
    const base = sixHumpCamel(point);
    const reg = this.regularizer(point);
    return [
      `Function outputs total y = ${py(base + reg)}`,
      `  base f(x) = ${py(base)}`,
      `  regularizer = ${py(reg)}  (coef=${py(this.normCoef)})`,
      `You have ${this.attempts} attempts left!`,
      closing,
    ].join("\n");
  }

  /** The observation `reset()` returns for the starting point. */
  initialObservation(): string {
    return this.report(this.current, "Please output the next x that will minimize y.\nFormat: x = [x1, x2]\nOutput:");
  }

  private scored(point: Point, feedback: string): CamelStep {
    const base = sixHumpCamel(point);
    const reg = this.regularizer(point);
    return { observation: null, reward: -(base + reg), feedback, baseLoss: base, regLoss: reg };
  }

  step(action: string): CamelStep {
    if (STOP_WORDS.some((word) => action.includes(word))) return this.scored(this.current, `Stopped at [${py(this.current[0])}, ${py(this.current[1])}].`);
    const match = POINT_PATTERN.exec(action);
    if (match === null) return { observation: null, reward: -1.0, feedback: `Invalid action: ${action}`, baseLoss: null, regLoss: null };
    const point: Point = [Number(match[1]), Number(match[2])];
    if (point.some((c) => c < LOW || c > HIGH)) return this.scored(this.current, `x out of range [${py(LOW)}, ${py(HIGH)}].`);
    this.current = point;
    this.attempts -= 1;
    const base = sixHumpCamel(point);
    const reg = this.regularizer(point);
    return { observation: this.report(point, "Format: x = [x1, x2]\nOutput:"), reward: -(base + reg), feedback: "Choose x to minimize y.", baseLoss: base, regLoss: reg };
  }
}
