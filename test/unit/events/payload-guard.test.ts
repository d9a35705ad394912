import { inspect } from "node:util";
import * as Arbitrary from "effect/Arbitrary";
import * as Either from "effect/Either";
import * as FastCheck from "effect/FastCheck";
import * as Schema from "effect/Schema";
import { describe, expect, it } from "vitest";
import { EVENT_DATA, JobSpecRecord } from "../../../src/events/event-schema.js";
import { compileGuard } from "../../../src/events/payload-guard.js";

type AnySchema = Schema.Schema<any, any, never>;

/** How the compiled guard and `Schema.is` answer on `values`: where they differ (shown, not just counted), and how many `Schema.is` rejects. */
function compare(schema: AnySchema, values: readonly unknown[]): { disagreements: string[]; rejected: number } {
  const is = Schema.is(schema);
  const guard = compileGuard(schema);
  const disagreements: string[] = [];
  let rejected = 0;
  for (const v of values) {
    const expected = is(v);
    if (!expected) rejected += 1;
    if (guard(v) !== expected) disagreements.push(`Schema.is says ${expected}: ${inspect(v, { depth: 8 })}`);
  }
  return { disagreements, rejected };
}

const disagreements = (schema: AnySchema, values: readonly unknown[]) => compare(schema, values).disagreements;

const isPlainContainer = (v: unknown): v is Record<string, unknown> | unknown[] =>
  Array.isArray(v) || (typeof v === "object" && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v)));

/** Every path to a value inside `value` (objects and arrays), shallowest first, at most `limit`. */
function pathsIn(value: unknown, limit = 60): PropertyKey[][] {
  const paths: PropertyKey[][] = [];
  const queue: [unknown, PropertyKey[]][] = [[value, []]];
  while (queue.length > 0 && paths.length < limit) {
    const [v, path] = queue.shift()!;
    if (!isPlainContainer(v)) continue;
    for (const key of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      const child = [...path, key];
      paths.push(child);
      queue.push([(v as Record<PropertyKey, unknown>)[key as string], child]);
    }
  }
  return paths;
}

const REMOVE = Symbol("remove");

/** `value` with the thing at `path` replaced by `change(it)` (or removed), copying only along the path. */
function changedAt(value: unknown, path: readonly PropertyKey[], change: (old: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [key, ...rest] = path as [PropertyKey, ...PropertyKey[]];
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  const next = changedAt(copy[key], rest, change);
  if (next === REMOVE) {
    if (Array.isArray(copy)) copy.splice(Number(key), 1);
    else delete copy[key];
  } else copy[key] = next;
  return copy;
}

/** A value of another JSON type than `old`. */
function otherType(old: unknown): unknown {
  if (typeof old === "string") return 42;
  if (typeof old === "number") return String(old);
  if (typeof old === "boolean") return old ? "true" : 0;
  if (old === null) return {};
  if (Array.isArray(old)) return Object.assign({}, old, { length: old.length }); // array-like, not an array
  return "an object once";
}

/**
 * The ways a payload goes wrong: the whole thing replaced (null, an array, a string), and at each
 * place inside it a field removed, its type changed, a literal that matches nothing, null, an extra
 * field, an array element broken or added. Some of these stay valid (an optional field removed,
 * anything inside an Unknown); the guard must agree either way.
 */
function mutants(value: unknown): unknown[] {
  const out: unknown[] = [null, undefined, [], "payload", 0, [value]];
  if (isPlainContainer(value) && !Array.isArray(value)) out.push({ ...value, extra_field: { nested: true } });
  for (const path of pathsIn(value)) {
    out.push(changedAt(value, path, () => REMOVE));
    out.push(changedAt(value, path, otherType));
    out.push(changedAt(value, path, () => null));
    out.push(changedAt(value, path, () => "no-such-literal"));
    out.push(changedAt(value, path, () => undefined));
    out.push(
      changedAt(value, path, (old) => {
        if (Array.isArray(old)) return old.length === 0 ? [Symbol("not json")] : [...old.slice(1), { broken: true }];
        if (isPlainContainer(old)) return { ...old, extra_field: 1 };
        return old;
      }),
    );
  }
  return out;
}

const sample = (schema: AnySchema, numRuns: number) => FastCheck.sample(Arbitrary.make(schema), { numRuns, seed: 20260101 });

describe("compileGuard agrees with Schema.is on every event payload schema", () => {
  for (const [type, schema] of Object.entries(EVENT_DATA) as [string, AnySchema][]) {
    // A run's start carries its whole matrix and config (~17 kB a payload here): fewer of those.
    const runs = type === "RunStarted" ? 12 : 40;
    it(`${type}: generated payloads, and the same payloads broken`, { timeout: 30_000 }, () => {
      const valid = sample(schema, runs);
      expect(compare(schema, valid)).toEqual({ disagreements: [], rejected: 0 });

      const broken = valid.flatMap(mutants);
      const { disagreements, rejected } = compare(schema, broken);
      expect(disagreements).toEqual([]);
      // The mutants must really exercise rejection, or agreement would prove nothing.
      expect(rejected).toBeGreaterThan(broken.length / 10);
    });
  }
});

describe("compileGuard on hand-written edge cases of the event schemas", () => {
  const queued = { attempt: 1, invocation: 2 };
  const guardOf = <S extends AnySchema>(schema: S) => compileGuard(schema);

  it("accepts excess properties, as Schema.is does by default", () => {
    expect(guardOf(EVENT_DATA.JobQueued)({ ...queued, surplus: [1, 2] })).toBe(true);
    expect(disagreements(EVENT_DATA.JobQueued, [{ ...queued, surplus: [1, 2] }, { ...queued, [Symbol("s")]: 1 }])).toEqual([]);
  });

  it("takes NaN, ±Infinity and -0 as numbers", () => {
    const guard = guardOf(EVENT_DATA.JobQueued);
    for (const n of [Number.NaN, Infinity, -Infinity, -0]) expect(guard({ ...queued, attempt: n })).toBe(true);
    expect(disagreements(EVENT_DATA.JobQueued, [Number.NaN, Infinity, -0].map((attempt) => ({ ...queued, attempt })))).toEqual([]);
  });

  it("wants required fields as own properties; optional ones may be absent or undefined", () => {
    const guard = guardOf(EVENT_DATA.JobQueued);
    expect(guard({ attempt: 1 })).toBe(false);
    expect(guard({ attempt: 1, invocation: undefined })).toBe(false);
    expect(guard(Object.create(queued))).toBe(false);
    expect(guard(Object.assign(Object.create(null), queued))).toBe(true);
    const transitioned = { attempt: 1, from: "queued", to: "building", event: "START", reason: null };
    expect(disagreements(EVENT_DATA.JobTransitioned, [
      transitioned,
      { ...transitioned, deadline: null },
      { ...transitioned, deadline: undefined, detail: undefined },
      { ...transitioned, deadline: 5 },
      { ...transitioned, reason: undefined },
      { attempt: 1, from: "queued", to: "building", event: "START" },
    ])).toEqual([]);
    expect(guardOf(EVENT_DATA.JobTransitioned)({ ...transitioned, detail: undefined })).toBe(true);
  });

  it("arrays: empty, holes, wrong elements, array-like objects", () => {
    const evaluation = { attempt: 1, phase: "final", split: "val", score: null, feedback: "", example_scores: [] as unknown };
    const values = [
      evaluation,
      { ...evaluation, example_scores: [1, Number.NaN, -0] },
      { ...evaluation, example_scores: [1, "2"] },
      { ...evaluation, example_scores: [, 1] }, // eslint-disable-line no-sparse-arrays
      { ...evaluation, example_scores: { 0: 1, length: 1 } },
      { ...evaluation, phase: "later" },
      { ...evaluation, score: undefined },
    ];
    expect(disagreements(EVENT_DATA.EvaluationCompleted, values)).toEqual([]);
    expect(values.map(guardOf(EVENT_DATA.EvaluationCompleted))).toEqual([true, true, false, false, false, false, false]);
  });

  it("records check own string keys only, and a union of a struct and an array of it", () => {
    const finished = { invocation: 1, counts: {}, not_run: {} };
    const values = [
      finished,
      { ...finished, counts: { ok: 3, failed: Number.NaN } },
      { ...finished, counts: { ok: "3" } },
      { ...finished, counts: Object.create({ inherited: "not checked" }) },
      { ...finished, counts: { [Symbol("s")]: "not checked" } },
      { ...finished, counts: [] },
      { ...finished, not_run: null },
    ];
    expect(disagreements(EVENT_DATA.RunFinished, values)).toEqual([]);
    expect(values.map(guardOf(EVENT_DATA.RunFinished))).toEqual([true, true, false, true, true, false, false]);
    const preflight = { model: "m", prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost_usd: null, latency_ms: 3 };
    const [started] = sample(EVENT_DATA.RunStarted, 1);
    expect(disagreements(EVENT_DATA.RunStarted, [preflight, [], [preflight], [preflight, { ...preflight, model: 1 }], "x"].map((llm_preflight) => ({ ...(started as object), llm_preflight })))).toEqual([]);
  });

  it("runs the job id's filter: a path-escaping id is rejected", () => {
    const [spec] = sample(JobSpecRecord, 1);
    const guard = compileGuard(JobSpecRecord);
    expect(guard({ ...(spec as object), job_id: "job-1" })).toBe(true);
    expect(guard({ ...(spec as object), job_id: "../../victim" })).toBe(false);
    expect(disagreements(JobSpecRecord, ["job-1", "../x", "", ".hidden", 7].map((job_id) => ({ ...(spec as object), job_id })))).toEqual([]);
  });

  it("a wrong status literal, and null where an object is expected", () => {
    const [finished] = sample(EVENT_DATA.JobFinished, 1) as Record<string, unknown>[];
    const values = [{ ...finished, status: "done" }, { ...finished, resolved: null }, { ...finished, initial_values: null }, { ...finished, parameters: [null] }];
    expect(disagreements(EVENT_DATA.JobFinished, values)).toEqual([]);
    expect(values.map(guardOf(EVENT_DATA.JobFinished))).toEqual([false, false, true, false]);
  });
});

interface Tree {
  readonly value: number;
  readonly children: readonly Tree[];
}
const Tree: Schema.Schema<Tree> = Schema.Struct({ value: Schema.Number, children: Schema.Array(Schema.suspend(() => Tree)) });
enum Color {
  Red = "red",
  Green = 2,
}

/** Node kinds the event schemas do not use yet, which the guard compiles itself. */
const compiledKinds: Record<string, AnySchema> = {
  "Int, NonNegative": Schema.Struct({ n: Schema.Int.pipe(Schema.nonNegative()), m: Schema.NonNegative }),
  "tuple with optional element": Schema.Tuple(Schema.String, Schema.optionalElement(Schema.Number)),
  "tuple with rest and post-rest elements": Schema.Tuple([Schema.String], Schema.Number, Schema.Boolean),
  "record with a refined key": Schema.Record({ key: Schema.String.pipe(Schema.minLength(2)), value: Schema.Number }),
  "struct with a record": Schema.Struct({ a: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.String })),
  "discriminated union": Schema.Union(
    Schema.Struct({ kind: Schema.Literal("a"), a: Schema.Number }),
    Schema.Struct({ kind: Schema.Literal("b"), b: Schema.String }),
    Schema.Struct({ kind: Schema.Literal(1), c: Schema.Boolean }),
  ),
  "exact optional": Schema.Struct({ a: Schema.optionalWith(Schema.Number, { exact: true }) }),
  "recursive (suspend)": Tree,
  "transformation (type side)": Schema.Struct({ n: Schema.NumberFromString, d: Schema.optional(Schema.NumberFromString) }),
  enums: Schema.Struct({ c: Schema.Enums(Color) }),
  "bigint and literals": Schema.Struct({ b: Schema.BigIntFromSelf, l: Schema.Literal(1n, null, true, "x") }),
  "empty struct": Schema.Struct({}),
  "undefined, void, unknown": Schema.Struct({ u: Schema.Undefined, v: Schema.Void, x: Schema.Unknown }),
};

describe("compileGuard on node kinds the event schemas do not use", () => {
  for (const [kind, schema] of Object.entries(compiledKinds)) {
    it(kind, { timeout: 30_000 }, () => {
      const valid = sample(schema, 60);
      expect(compare(schema, valid).rejected).toBe(0);
      const edges = [null, undefined, 0, -0, Number.NaN, "", "ab", [], {}, [1], ["s"], ["s", 1], ["s", 1, true], ["s", true], { n: 1.5, m: 0 }, { n: -0, m: -1 }];
      expect(disagreements(schema, [...valid, ...valid.flatMap(mutants), ...edges])).toEqual([]);
    });
  }
});

class Box {
  constructor(readonly content: number) {}
}
const BoxSchema = Schema.declare((u: unknown): u is Box => u instanceof Box);
class Tagged extends Schema.Class<Tagged>("Tagged")({ kind: Schema.Literal("a"), n: Schema.Number }) {}

describe("field names the guard writes into its source", () => {
  const sym = Symbol("field");
  const schema = Schema.Struct({
    'quote"and\\backslash': Schema.String,
    "line\nbreak\u2028": Schema.Number,
    ["__proto__"]: Schema.optional(Schema.String),
    constructor: Schema.Boolean,
    "": Schema.NullOr(Schema.Number),
    [sym]: Schema.Literal("s"),
  });
  const valid = { 'quote"and\\backslash': "q", "line\nbreak\u2028": 1, constructor: true, "": null, [sym]: "s" };

  it("are read as the same keys effect reads, whatever characters they hold", () => {
    const guard = compileGuard(schema);
    expect(guard(valid)).toBe(true);
    const values = [
      valid,
      { ...valid, 'quote"and\\backslash': 1 },
      { ...valid, "line\nbreak\u2028": "1" },
      { ...valid, constructor: "yes" },
      { ...valid, "": undefined },
      { ...valid, [sym]: "t" },
      Object.assign(JSON.parse('{"__proto__": "own"}'), valid),
      Object.assign(JSON.parse('{"__proto__": 1}'), valid),
      { 'quote"and\\backslash': "q", "line\nbreak\u2028": 1, "": null, [sym]: "s" }, // constructor only inherited
    ];
    expect(disagreements(schema, values)).toEqual([]);
    expect(values.map(guard)).toEqual([true, false, false, false, false, false, true, false, false]);
  });
});

describe("what compileGuard does not mirror itself is left to Schema.is, and still agrees", () => {
  const cases: [string, AnySchema, unknown[]][] = [
    ["a declaration (unknown to the compiler) inside a struct", Schema.Struct({ box: BoxSchema, n: Schema.Number }), [{ box: new Box(1), n: 1 }, { box: { content: 1 }, n: 1 }, { box: new Box(1) }]],
    ["a template literal", Schema.Array(Schema.TemplateLiteral("id-", Schema.Number)), [["id-1"], ["id-x"], ["id-"], []]],
    // The filter sees effect's copy of the struct (excess keys dropped), not the input.
    [
      "a refined struct",
      Schema.Struct({ a: Schema.Number }).pipe(Schema.filter((o) => Object.keys(o).length === 1)),
      [{ a: 1 }, { a: 1, b: 2 }, { b: 2 }],
    ],
    ["parse options on a node", Schema.Struct({ inner: Schema.Struct({ a: Schema.Number }).annotations({ parseOptions: { onExcessProperty: "error" } }) }), [{ inner: { a: 1 } }, { inner: { a: 1, b: 2 } }]],
    ["a decoding fallback", Schema.Struct({ n: Schema.Number.annotations({ decodingFallback: () => Either.right(0) }) }), [{ n: 1 }, { n: "x" }, {}]],
    ["a class in a discriminated union", Schema.Union(Tagged, Schema.Struct({ kind: Schema.Literal("b") })), [new Tagged({ kind: "a", n: 1 }), { kind: "a", n: 1 }, { kind: "b" }, { kind: "c" }]],
  ];
  for (const [what, schema, values] of cases) {
    it(what, () => {
      expect(disagreements(schema, values)).toEqual([]);
      // Both answers occur, so agreement is not all-true or all-false by accident.
      expect(new Set(values.map(Schema.is(schema)))).toEqual(new Set([true, false]));
    });
  }

  it("a refined struct is judged on effect's copy: excess keys do not reach the filter", () => {
    const guard = compileGuard(Schema.Struct({ a: Schema.Number }).pipe(Schema.filter((o) => Object.keys(o).length === 1)));
    expect(guard({ a: 1, b: 2 })).toBe(true);
  });
});
