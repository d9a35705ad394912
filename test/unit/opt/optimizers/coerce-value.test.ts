/** Coercing proposed values back to the parameter's kind (algorithms reference §2.2 `construct_update_dict`). */
import { describe, expect, it } from "vitest";
import { coerceValue } from "../../../../src/opt/optimizers/coerce-value.js";
import { createOptimizer } from "../../../../src/opt/optimizers/optimizer-registry.js";
import { jsonReply, scriptedLlm, xmlReply } from "../../../support/scripted-llm.js";
import { problemOf, signal, variable } from "./fixtures.js";

const ok = (value: unknown) => ({ ok: true, value });

describe("numbers", () => {
  it("parses floats from text and keeps numbers", () => {
    expect(coerceValue("number", "2.5")).toEqual(ok(2.5));
    expect(coerceValue("number", " -3 \n")).toEqual(ok(-3));
    expect(coerceValue("number", "1e-3")).toEqual(ok(0.001));
    expect(coerceValue("number", 4)).toEqual(ok(4));
  });

  it("truncates integers toward zero, like Python's int()", () => {
    expect(coerceValue("integer", "2.9")).toEqual(ok(2));
    expect(coerceValue("integer", -2.9)).toEqual(ok(-2));
    expect(coerceValue("integer", "7")).toEqual(ok(7));
  });

  it("rejects what is not a number", () => {
    for (const bad of ["abc", "", "  ", "NaN", "Infinity", true, null, "1/2"]) {
      const result = coerceValue("number", bad);
      expect(result.ok, JSON.stringify(bad)).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(/^not a number: /);
    }
    expect(coerceValue("integer", "abc").ok).toBe(false);
  });
});

describe("json", () => {
  it("parses JSON text", () => {
    expect(coerceValue("json", '{"a": [1, 2], "b": null}')).toEqual(ok({ a: [1, 2], b: null }));
    expect(coerceValue("json", "[1, 2]")).toEqual(ok([1, 2]));
  });

  it("parses Python literals: True/False/None, single quotes, tuples", () => {
    expect(coerceValue("json", "{'a': True, 'b': None, 'c': False}")).toEqual(ok({ a: true, b: null, c: false }));
    expect(coerceValue("json", "(1, 2, 'x')")).toEqual(ok([1, 2, "x"]));
    expect(coerceValue("json", "{'pair': (1, 2), 'say': 'he said \"hi\"'}")).toEqual(ok({ pair: [1, 2], say: 'he said "hi"' }));
    expect(coerceValue("json", "{'it\\'s': 1}")).toEqual(ok({ "it's": 1 }));
  });

  it("leaves True/None and parentheses inside Python strings alone", () => {
    expect(coerceValue("json", "{'msg': 'None of these are True'}")).toEqual(ok({ msg: "None of these are True" }));
    expect(coerceValue("json", "['f(x)', 'a (b) c']")).toEqual(ok(["f(x)", "a (b) c"]));
  });

  it("parses nested tuples, one-element tuples and trailing commas", () => {
    expect(coerceValue("json", "((1, 2), (3, 4))")).toEqual(ok([[1, 2], [3, 4]]));
    expect(coerceValue("json", "(1,)")).toEqual(ok([1]));
    expect(coerceValue("json", "{'a': [1, 2,],}")).toEqual(ok({ a: [1, 2] }));
    expect(coerceValue("json", "{\"mixed\": 'quotes', 'n': -1.5e2}")).toEqual(ok({ mixed: "quotes", n: -150 }));
  });

  it("reads sets as lists, numeric keys as text and Python string escapes", () => {
    expect(coerceValue("json", "{1, 2}")).toEqual(ok([1, 2]));
    expect(coerceValue("json", "{1: 'one', 'e': {}}")).toEqual(ok({ "1": "one", e: {} }));
    expect(coerceValue("json", "['a\\nb', '\\x41\\u00e9', 'back\\\\slash', 'keep\\d']")).toEqual(ok(["a\nb", "A\u00e9", "back\\slash", "keep\\d"]));
  });

  it("rejects malformed Python literals", () => {
    for (const bad of ["(1 2)", "{'a' 1}", "['open", "[1, 2", "{'a': }", "True False"]) expect(coerceValue("json", bad).ok, bad).toBe(false);
  });

  it("passes non-string values through", () => {
    expect(coerceValue("json", { a: 1 })).toEqual(ok({ a: 1 }));
    expect(coerceValue("json", [1])).toEqual(ok([1]));
  });

  it("rejects text that is neither JSON nor a Python literal", () => {
    const result = coerceValue("json", "{a: 1");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(/^not a JSON or Python literal: /);
    expect(coerceValue("json", "print('x')").ok).toBe(false);
    expect(coerceValue("json", "[1, 2] trailing").ok).toBe(false);
  });
});

describe("text and code", () => {
  it("pass strings through unchanged", () => {
    expect(coerceValue("text", "  spaced  ")).toEqual(ok("  spaced  "));
    expect(coerceValue("code", "def f(x):\n    return x")).toEqual(ok("def f(x):\n    return x"));
  });

  it("write other values as JSON text", () => {
    expect(coerceValue("text", 5)).toEqual(ok("5"));
    expect(coerceValue("text", { a: 1 })).toEqual(ok('{"a":1}'));
  });
});

describe("in a proposal", () => {
  it("a value that does not fit is noted and the parameter is left out of the update", async () => {
    const p = problemOf([variable("x", "number", 1.5), variable("y", "number", 2.5)]);
    const proposal = await createOptimizer("OptoPrimeV2", {}, scriptedLlm([xmlReply({ x: "abc", y: "3" })])).propose(p, signal);
    expect(proposal.update).toEqual({ y: 3 });
    expect(proposal.notes).toEqual(['x: not a number: "abc"; left unchanged']);
  });

  it("a proposal naming an unknown variable is ignored with a note", async () => {
    const p = problemOf([variable("x", "number", 1.5)]);
    const proposal = await createOptimizer("OptoPrime", {}, scriptedLlm([jsonReply({ x: 2, nope: 1, other: "z" })])).propose(p, signal);
    expect(proposal.update).toEqual({ x: 2 });
    expect(proposal.notes).toEqual(["ignored suggestions for unknown variables: nope, other"]);
  });
});
